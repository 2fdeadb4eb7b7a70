"""Candidate lookup that stays flat as the catalog grows.

Entries are filed under their raise sites (``module:qualname``) and under one
word that their message pattern requires (its anchor). An exception looks up
its innermost frames and the words of its message, so only a handful of
regexes ever run, whatever the size of the catalog.
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from typing import Iterable

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

from enrich.catalog.schema import Entry

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
MAX_WORDS = 256


def anchor_word(pattern: re.Pattern) -> str | None:
    """The longest word the pattern requires literally, or None."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern)
    except Exception:  # noqa: BLE001
        return None
    runs, run = [], []
    for op, arg in parsed:
        if op is sre_parse.LITERAL:
            run.append(chr(arg))
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    words = [w for text in runs for w in _whole_words(text)]
    return max(words, key=len) if words else None


def _whole_words(run: str) -> list[str]:
    """Words inside a literal run; one touching the run's edge may continue into a group."""
    return [m.group() for m in WORD.finditer(run) if 0 < m.start() and m.end() < len(run)]


class Index:
    def __init__(self, entries: Iterable[Entry]):
        self.by_site: dict[str, list[Entry]] = defaultdict(list)
        self.site_globs: list[tuple[re.Pattern, Entry]] = []
        self.by_word: dict[str, list[Entry]] = defaultdict(list)
        self.unanchored: list[Entry] = []
        for entry in entries:
            for site in entry.sites:
                if "*" in site:
                    self.site_globs.append((re.compile(fnmatch.translate(site)), entry))
                else:
                    self.by_site[site].append(entry)
            if entry.message is not None:
                word = anchor_word(entry.message)
                (self.by_word[word] if word else self.unanchored).append(entry)

    def candidates(self, message: str, sites: Iterable[str]) -> list[Entry]:
        found: dict[str, Entry] = {}
        for site in sites:
            for entry in self.by_site.get(site, ()):
                found[entry.id] = entry
            for glob, entry in self.site_globs:
                if glob.match(site):
                    found[entry.id] = entry
        if message:
            for word in set(WORD.findall(message, 0, 4096)[:MAX_WORDS]):
                for entry in self.by_word.get(word, ()):
                    found[entry.id] = entry
        for entry in self.unanchored:
            found[entry.id] = entry
        return list(found.values())
