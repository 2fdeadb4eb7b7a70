"""Match a message that was cut short against the start of a catalog pattern.

A paste cut mid-line, a title that drops the last words, a log that prints a multi-line message
one line per record: the text is the beginning of a message the catalog knows. It matches when
some prefix of the entry's pattern (one alternative of a top-level alternation at a time)
matches the whole text, and that prefix holds enough fixed words to mean something.
"""

from __future__ import annotations

import re

MIN_LITERAL = 12          # letters and digits of fixed text the matched prefix must demand
MIN_LITERAL_BEFORE_WILDCARD = 40
MIN_TEXT = 16
BROAD_TAIL = re.compile(r"(?:\.|\[\^[^\]]*\]|\\[SWD])[*+?]\??\)*$|\{\d*,\d*\}\??\)*$")
_PREFIXES: dict[str, list[re.Pattern]] = {}
ESCAPES_AND_SYNTAX = re.compile(r"\(\?P<\w+>|\(\?[:=!]|\\[dDsSwWbB]|[()|?*+^$.\[\]{}]|\\")


def branches(pattern: str) -> list[str]:
    """The pattern as a list of alternatives when it is one alternation at the top."""
    body, anchor = (pattern[1:], "^") if pattern.startswith("^") else (pattern, "")
    if body.startswith("(?:") and _closing(body, 0) == len(body) - 1:
        body = body[3:-1]
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = body.find("]", i + 2)
            i = end + 1 if end > 0 else i + 1
            continue
        depth += c == "("
        depth -= c == ")"
        if c == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    if len(parts) == 1:
        return [pattern]
    return [anchor + p for p in parts]


def _closing(text: str, open_at: int) -> int:
    depth, i = 0, open_at
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = text.find("]", i + 2)
            i = end + 1 if end > 0 else i + 1
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return i
        i += 1
    return -1


def _literal_size(pattern: str) -> int:
    return sum(c.isalnum() for c in ESCAPES_AND_SYNTAX.sub("", pattern))


def prefixes(pattern: re.Pattern) -> list[re.Pattern]:
    """The proper prefixes of the pattern that compile and demand enough fixed text, longest first."""
    found = _PREFIXES.get(pattern.pattern)
    if found is None:
        found = []
        for branch in branches(pattern.pattern):
            for end in range(len(branch) - 1, 0, -1):
                head = branch[:end]
                if _literal_size(head) < MIN_LITERAL:
                    break
                if BROAD_TAIL.search(head) and _literal_size(head) < MIN_LITERAL_BEFORE_WILDCARD:
                    continue      # ends in a wildcard run after little fixed text: too loose a start
                try:
                    found.append(re.compile(head, pattern.flags))
                except re.error:
                    continue
        _PREFIXES[pattern.pattern] = found
    return found


def cut_match(pattern: re.Pattern, text: str) -> re.Match | None:
    """A match of the whole ``text`` by a proper prefix of ``pattern``: the text is the start of
    a message the pattern describes, cut short."""
    text = text.rstrip(" `'\"*")
    if len(text) < MIN_TEXT:
        return None
    bare = text.rstrip(".…")
    for prefix in prefixes(pattern):
        m = prefix.fullmatch(text) or (prefix.fullmatch(bare) if bare != text else None)
        if m is not None:
            return m
    return None
