"""Words that are an entry's error only in a text that shows its program at work (the catalog's
``match.in_text``): nvcc's and ninja's own lines name no FlashInfer path, but in a log that shows
FlashInfer's JIT build they are that build failing."""

from __future__ import annotations

from enrich.catalog import Catalog
from enrich.catalog.regex import captured
from enrich.logs.engines import Programs
from enrich.logs.mentions import MAX_LINE, Mention, assigned
from enrich.logs.per_catalog import per_catalog


@per_catalog
def _entries(catalog: Catalog) -> list:
    return [e for e in catalog.entries.values() if e.in_text is not None and e.retired is None]


def shown(texts: tuple[str, ...], catalog: Catalog, programs: Programs = Programs()) -> list:
    """The entries whose program the text shows: by its name or the entry's own marks, as written
    or as its lines read (a JSON log line doubles a Windows path's backslashes); an entry without
    marks of its own, also by the marks the reader knows the program by."""
    return [e for e in _entries(catalog)
            if any(e.in_text.shows.search(text) for text in texts)
            or not e.in_text.marks and programs.shown.intersection(e.in_text.names)]


def words_in(entries: list, said: str) -> tuple | None:
    """(entry, the match) of the first entry whose in-text words are in ``said``."""
    for entry in entries:
        m = entry.in_text.message.search(said[:MAX_LINE])
        if m is not None:
            return entry, m
    return None


def in_text_mentions(lines: list[tuple[int, str]], entries: list) -> list[Mention]:
    """Lines (title, prose, build output) that hold an entry's in-text words: the words, as with
    any quote (what a line holds around them differs with the collector that wrote it)."""
    out = []
    for number, line in lines if entries else ():
        found = words_in(entries, line)
        if found is None:
            continue
        entry, m = found
        if not assigned(line, m.group(0)):      # not a string that code under review assigns
            out.append(Mention(number, entry.id, m.group(0).strip(), captured(m)))
    return out
