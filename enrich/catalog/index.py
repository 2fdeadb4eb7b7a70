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

from enrich.catalog.regex import WORD, alternative_words, written_words
from enrich.catalog.schema import Entry


class Index:
    """Entries by raise site, and by the rarest word their message pattern requires."""

    def __init__(self, entries: Iterable[Entry]):
        entries = list(entries)
        self.by_site: dict[str, list[Entry]] = defaultdict(list)
        self.by_module: dict[str, list[Entry]] = defaultdict(list)   # for printed frames (no class)
        self.site_globs: list[tuple[re.Pattern, re.Pattern, Entry]] = []
        self.by_word: dict[str, list[Entry]] = defaultdict(list)
        self.unanchored: list[Entry] = []
        self.loose_words: dict[str, frozenset[str]] = {}   # of an unanchored entry: every word its pattern writes
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
                    self.loose_words[entry.id] = frozenset(written_words(entry.message.pattern))
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
