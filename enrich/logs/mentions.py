"""Catalog messages written anywhere in a line: an issue's title, prose, backticks, quotes, a
JSON error body. A message people quote is as good a clue as one a process printed, when
nothing closer (an exception or error line) names the error."""

from __future__ import annotations

import re
from dataclasses import dataclass

from enrich.catalog import Catalog

# where a quoted message may start inside a line
STARTS = re.compile(r"[`\"'(\[>*#]+\s*|: +|\bError: +|\s+")
MAX_STARTS = 48
MAX_LINE = 2000


@dataclass
class Mention:
    line: int
    entry_id: str
    text: str
    groups: dict


def mentions(lines: list[tuple[int, str]], catalog: Catalog) -> list[Mention]:
    """Catalog messages in (line number, text) pairs, one per line and entry."""
    found: list[Mention] = []
    index = catalog.index
    for number, line in lines:
        line = line[:MAX_LINE]
        if len(line) < 12:
            continue
        candidates = index.message_candidates(line)
        for entry in candidates:
            if entry.message is None or entry.require_site:
                continue
            m = _search(entry.message, line)
            if m is not None:
                found.append(Mention(number, entry.id, m.group(0),
                                     {k: v for k, v in m.groupdict().items() if v is not None}))
    return found


def _search(pattern: re.Pattern, line: str) -> re.Match | None:
    if not pattern.pattern.startswith("^"):
        return pattern.search(line)
    m = pattern.match(line)
    if m is not None:
        return m
    for n, start in enumerate(STARTS.finditer(line)):
        if n >= MAX_STARTS:
            break
        m = pattern.match(line[start.end():])
        if m is not None:
            return m
    return None
