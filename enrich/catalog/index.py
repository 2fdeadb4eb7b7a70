"""Candidate lookup that stays flat as the catalog grows.

Entries are filed under their raise sites (``module:qualname``) and under one
word that their message pattern requires (its anchor). An exception looks up
its innermost frames and the words of its message, so only a handful of
regexes ever run, whatever the size of the catalog.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter, defaultdict
from typing import Iterable

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

from enrich.catalog.schema import Entry

# A word starts where no word character precedes it, in messages and in patterns alike.
WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{2,}")


def _parsed(pattern: re.Pattern):
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        return sre_parse.parse(pattern.pattern)
    except Exception:  # noqa: BLE001
        return None


def literal_runs(pattern: re.Pattern, items=None) -> list[str]:
    """The literal runs of the pattern's top-level sequence: text every match contains.
    "\0" marks an edge where a word is known to end (^, $ or \\b)."""
    items = _parsed(pattern) if items is None else items
    if items is None:
        return []
    runs, run = [], []
    for op, arg in items:
        if op is sre_parse.LITERAL:
            run.append(chr(arg))
        elif op is sre_parse.AT and arg in (sre_parse.AT_BEGINNING, sre_parse.AT_END, sre_parse.AT_BOUNDARY):
            run.append("\0")
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    return [r for r in runs if r.strip("\0")]


def required_words(pattern: re.Pattern) -> set[str]:
    """Words any match of the pattern must contain, as whole words of the message."""
    return {w for text in literal_runs(pattern) for w in _whole_words(text)}


def alternative_words(pattern: re.Pattern) -> list[set[str]]:
    """For a pattern that is one alternation at the top (``A|B``, ``^(?:A|B)``): the words each
    alternative requires. Otherwise one set, the pattern's required words."""
    items = _parsed(pattern)
    if items is None:
        return [set()]
    body = [item for item in items if item[0] is not sre_parse.AT]
    if len(body) == 1 and body[0][0] is sre_parse.SUBPATTERN:
        body = list(body[0][1][-1])
    if len(body) == 1 and body[0][0] is sre_parse.BRANCH:
        return [{w for text in literal_runs(pattern, list(branch)) for w in _whole_words(text)}
                for branch in body[0][1][1]]
    return [required_words(pattern)]


def _whole_words(run: str) -> list[str]:
    """Words inside a literal run; one touching the run's edge may continue into a group."""
    return [m.group() for m in WORD.finditer(run) if 0 < m.start() and m.end() < len(run)]


class Index:
    """Entries by raise site, and by the rarest word their message pattern requires."""

    def __init__(self, entries: Iterable[Entry]):
        entries = list(entries)
        self.by_site: dict[str, list[Entry]] = defaultdict(list)
        self.by_module: dict[str, list[Entry]] = defaultdict(list)   # for printed frames (no class)
        self.site_globs: list[tuple[re.Pattern, re.Pattern, Entry]] = []
        self.by_word: dict[str, list[Entry]] = defaultdict(list)
        self.unanchored: list[Entry] = []
        self.by_source: list[Entry] = []     # known by their raise line: candidates for empty messages
        self._glob_cache: dict[tuple[str, bool], list[Entry]] = {}
        alternatives = {e.id: alternative_words(e.message) for e in entries if e.message is not None}
        # the words checked before any regex runs: only where there is one alternative
        self.required = {entry_id: frozenset(alts[0]) if len(alts) == 1 else frozenset()
                         for entry_id, alts in alternatives.items()}
        frequency = Counter(w for alts in alternatives.values() for ws in alts for w in ws)
        for entry in entries:
            for site in entry.sites:
                module = site.partition(":")[0]
                if "*" in site:
                    self.site_globs.append((re.compile(fnmatch.translate(site)),
                                            re.compile(fnmatch.translate(module)), entry))
                else:
                    self.by_site[site].append(entry)
                if "*" not in module:
                    self.by_module[module].append(entry)
            if entry.source is not None:
                self.by_source.append(entry)
            for words in alternatives.get(entry.id, ()):   # filed under one word per alternative
                anchor = min(words, key=lambda w: (frequency[w], -len(w)), default=None)
                if anchor is None:
                    self.unanchored.append(entry)
                    break
                self.by_word[anchor].append(entry)

    def _globbed(self, key: str, module_only: bool) -> list[Entry]:
        found = self._glob_cache.get((key, module_only))
        if found is None:
            found = [entry for site_glob, module_glob, entry in self.site_globs
                     if (module_glob if module_only else site_glob).match(key)]
            if len(self._glob_cache) < 65536:
                self._glob_cache[(key, module_only)] = found
        return found

    def site_candidates(self, frames: Iterable) -> list[Entry]:
        """Entries declaring a site among these frames; a printed frame is looked up by module."""
        found: dict[str, Entry] = {}
        for frame in frames:
            if frame.textual:
                hits = [*self.by_module.get(frame.module, ()), *self._globbed(frame.module, True)]
            else:
                hits = [*self.by_site.get(frame.site, ()), *self._globbed(frame.site, False)]
            for entry in hits:
                found[entry.id] = entry
        return list(found.values())

    def message_candidates(self, message: str) -> list[Entry]:
        found: dict[str, Entry] = {}
        if message:
            present = set(WORD.findall(message))
            for word in present:
                for entry in self.by_word.get(word, ()):
                    if self.required[entry.id] <= present:   # every word it needs, before any regex
                        found[entry.id] = entry
        else:
            for entry in self.by_source:
                found[entry.id] = entry
        for entry in self.unanchored:
            found[entry.id] = entry
        return list(found.values())
