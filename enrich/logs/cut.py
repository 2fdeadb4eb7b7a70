"""Match a message that was cut short against the start of a catalog pattern.

A paste cut mid-line, a title that drops the last words, a log that prints a multi-line message
one line per record: the text is the beginning of a message the catalog knows. It matches when
some prefix of the entry's pattern (one alternative of a top-level alternation at a time)
matches the whole text, and that prefix holds enough fixed words to mean something.
"""

from __future__ import annotations

import re

from enrich.catalog.regex import branches, captured, syntax

MIN_LITERAL = 12          # letters and digits of fixed text the matched prefix must demand
MIN_LITERAL_BEFORE_WILDCARD = 40
MIN_TEXT = 16
CUT_MARK = re.compile(r"(?:\.{2,}|…)+$")
BROAD_TAIL = re.compile(r"(?:\.|\[\^[^\]]*\]|\[\\([sSwWdD])\\(?!\1)[sSwWdD]\]|\\[SWD])[*+?]\??\)*$|\{\d*,\d*\}\??\)*$")
_PREFIXES: dict[tuple[str, int], list[tuple[re.Pattern, bool]]] = {}
PHRASE_GOES_ON = re.compile(r" \w")      # after a prefix, the message's next word
LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")
CLASS = re.compile(r"\\.|(\[\^?\]?(?:[^\]\\]|\\.)*\])")      # an escape, or a set: one character, no fixed text
ESCAPES_AND_SYNTAX = re.compile(r"\(\?P<\w+>|\(\?[:=!]|\\[dDsSwWbB]|[()|?*+^$.\[\]{}]|\\")


def _open_groups(head: str) -> int:
    """Groups the prefix opened and has not closed: a cut inside an alternative of a group."""
    return sum((c == "(") - (c == ")") for _, c, _ in syntax(head))


def _optional_spans(branch: str) -> list[tuple[int, int]]:
    """(start, end) of each group the pattern may skip (``(...)?``, ``(...)*``): a text that stops
    inside one, after little else, shows none of what the message must say ("NCCL error: invalid
    usage" is only the optional lead-in of "Duplicate GPU detected")."""
    opened, spans = [], []
    for i, c, _ in syntax(branch):
        if c == "(":
            opened.append(i)
        elif c == ")" and opened:
            start = opened.pop()
            if branch[i + 1:i + 2] in ("?", "*") or branch.startswith("{0", i + 1):
                spans.append((start, i))
    return spans


def _literal_size(pattern: str) -> int:
    """Letters and digits the pattern demands (a lookaround's text is not in the match)."""
    sets_out = CLASS.sub(lambda m: "" if m.group(1) else m.group(0), LOOKAROUND.sub("", pattern))
    return sum(c.isalnum() for c in ESCAPES_AND_SYNTAX.sub("", sets_out))


def _prefixes(pattern: re.Pattern) -> list[tuple[re.Pattern, bool]]:
    """(prefix, whether the message's next word follows right after it) for each proper prefix."""
    found = _PREFIXES.get((pattern.pattern, pattern.flags))
    if found is None:
        found = []
        for branch in branches(pattern.pattern):
            optional = _optional_spans(branch)
            for end in range(len(branch) - 1, 0, -1):
                head = branch[:end]
                if _literal_size(head) < MIN_LITERAL:
                    break
                if any(start < end <= close and _literal_size(branch[:start]) < MIN_LITERAL for start, close in optional):
                    continue      # all it demands so far is in a part the message may leave out
                if BROAD_TAIL.search(head) and _literal_size(head) < MIN_LITERAL_BEFORE_WILDCARD:
                    continue      # ends in a wildcard run after little fixed text: too loose a start
                try:
                    found.append((re.compile(head + ")" * _open_groups(head), pattern.flags),
                                  PHRASE_GOES_ON.match(branch, end) is not None))
                except re.error:
                    continue
        _PREFIXES[pattern.pattern, pattern.flags] = found
    return found


def prefixes(pattern: re.Pattern) -> list[re.Pattern]:
    """The proper prefixes of the pattern that compile and demand enough fixed text, longest first."""
    return [prefix for prefix, _ in _prefixes(pattern)]


def cut_match(pattern: re.Pattern, text: str, sentence: bool = False, phrase: bool = False) -> re.Match | None:
    """A match of the whole ``text`` by a proper prefix of ``pattern``: the text is the start of
    a message the pattern describes, cut short. ``sentence``: the text is a sentence someone
    wrote (a title cut before its own words), whose full stop may be theirs. ``phrase``: the text
    must stop where the message's phrase may stop, not before its next word."""
    text = text.rstrip(" `'\"*")
    if len(text) < MIN_TEXT or not any(c.isspace() for c in text):
        return None      # short, or one word: a name quoted in prose, not the start of a message
    # "..." says it was cut; in a line a process printed, a full stop says the message ended
    bare = text.rstrip(".…") if sentence else CUT_MARK.sub("", text)
    for prefix, mid_phrase in _prefixes(pattern):
        if phrase and mid_phrase:
            continue
        m = prefix.fullmatch(text) or (prefix.fullmatch(bare) if bare != text else None)
        if m is not None:
            return m
    return None


def cut_values(m: re.Match) -> dict[str, str]:
    """The values a cut match shows: a group the cut closed (empty where the text stops) has none."""
    return {name: value for name, value in captured(m).items() if value}
