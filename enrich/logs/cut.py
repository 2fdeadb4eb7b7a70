"""Match a message that was cut short against the start of a catalog pattern.

A paste cut mid-line, a title that drops the last words, a log that prints a multi-line message
one line per record: the text is the beginning of a message the catalog knows. It matches when
some prefix of the entry's pattern (one alternative of a top-level alternation at a time)
matches the whole text, and that prefix holds enough fixed words to mean something. An
alternative the pattern looks for anywhere in a message ("has model type ... but Transformers
does not recognize") may also match from where its fixed words start inside the text.
"""

from __future__ import annotations

import re

from enrich.catalog.regex import branches, captured, syntax

MIN_LITERAL = 12          # letters and digits of fixed text the matched prefix must demand
MIN_LITERAL_BEFORE_WILDCARD = 40
MIN_LITERAL_UNANCHORED = 20   # a branch matched anywhere in a message: its start is not the message's
MIN_TEXT = 16
CUT_MARK = re.compile(r"(?:\.{2,}|…)+$")
BROAD_TAIL = re.compile(r"(?:\.|\[\^[^\]]*\]|\[\\([sSwWdD])\\(?!\1)[sSwWdD]\]|\\[SWD])[*+?]\??\)*$|\{\d*,\d*\}\??\)*$")
_PREFIXES: dict[tuple[str, int], list[tuple[re.Pattern, bool, str | None]]] = {}
# the fixed words a branch starts with (past a \b), where a prefix matched mid-text may begin
LEAD = re.compile(r"(?:\\b)?((?:[\w ,:;'`=<>/-]|\\[.()\[\]{}*+?|$ -])+)")
MIN_LEAD = 6
PHRASE_GOES_ON = re.compile(r" \w")      # after a prefix, the message's next word
LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")
CLASS = re.compile(r"\\.|(\[\^?\]?(?:[^\]\\]|\\.)*\])")      # an escape, or a set: one character, no fixed text
ESCAPES_AND_SYNTAX = re.compile(r"\(\?P<\w+>|\(\?[:=!]|\\[dDsSwWbB]|[()|?*+^$.\[\]{}]|\\")


def _closed(head: str, branch: str) -> str:
    """The prefix with the groups it opened closed: a cut inside an alternative of a group. A cut
    inside a lookahead (``(?= \\(GPU``) consumes what the text shows of it, where that is the
    message's text; not in a guard, a lookahead that the same words follow (``(?=While copying
    ...(?!, an exception))While copying``): what it tests lies past the cut."""
    opened, closing = [], {}
    for i, c, _ in syntax(branch):
        if c == "(":
            opened.append(i)
        elif c == ")" and opened:
            closing[opened.pop()] = i
    still_open = [i for i, end in closing.items() if i < len(head) <= end]
    for i in still_open:
        end = closing[i]
        guard = branch[end + 1:end + 6] == branch[i + 3:i + 8]
        if head.startswith("(?=", i) and not guard:
            head = head[:i] + "(?:" + head[i + 3:]
    return head + ")" * len(still_open)


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


def _branches(pattern: str) -> list[str]:
    """The pattern's alternatives, each anchored as the pattern anchors it: ``^(?:A|B)`` anchors
    both, ``^A|B`` A alone (``branches`` gives the first form's anchor to every alternative)."""
    parts = branches(pattern)
    cuts = [i for i, c, depth in syntax(pattern) if c == "|" and depth == 0]
    if len(parts) < 2 or len(cuts) != len(parts) - 1:
        return parts
    bounds = [-1, *cuts, len(pattern)]
    return [pattern[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def _lead(branch: str) -> str | None:
    """The fixed text a branch matched anywhere in a message starts with (its last character
    left out: a quantifier may follow it); None where that is too short to look for."""
    m = LEAD.match(branch)
    lead = re.sub(r"\\(.)", r"\1", m.group(1))[:-1] if m else ""
    return lead if len(lead) >= MIN_LEAD else None


def _prefixes(pattern: re.Pattern) -> list[tuple[re.Pattern, bool, str | None]]:
    """(prefix, whether the message's next word follows right after it, the fixed text where it
    may start inside the text: None for a branch anchored at the message's start, or one that
    demands too little to be looked for there) for each proper prefix."""
    found = _PREFIXES.get((pattern.pattern, pattern.flags))
    if found is None:
        found = []
        for branch in _branches(pattern.pattern):
            optional = _optional_spans(branch)
            lead = None if branch.startswith("^") else _lead(branch)
            for end in range(len(branch) - 1, 0, -1):
                head = branch[:end]
                if _literal_size(head) < MIN_LITERAL:
                    break
                if any(start < end <= close and _literal_size(branch[:start]) < MIN_LITERAL for start, close in optional):
                    continue      # all it demands so far is in a part the message may leave out
                if BROAD_TAIL.search(head) and _literal_size(head) < MIN_LITERAL_BEFORE_WILDCARD:
                    continue      # ends in a wildcard run after little fixed text: too loose a start
                try:
                    found.append((re.compile(_closed(head, branch), pattern.flags),
                                  PHRASE_GOES_ON.match(branch, end) is not None,
                                  lead if _literal_size(head) >= MIN_LITERAL_UNANCHORED else None))
                except re.error:
                    continue
        _PREFIXES[pattern.pattern, pattern.flags] = found
    return found


def prefixes(pattern: re.Pattern) -> list[re.Pattern]:
    """The proper prefixes of the pattern that compile and demand enough fixed text, longest first."""
    return [prefix for prefix, _, _ in _prefixes(pattern)]


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
    caseless = bool(pattern.flags & re.IGNORECASE)
    starts: dict[str, list[int]] = {}      # where each lead is in the text, found once
    for prefix, mid_phrase, lead in _prefixes(pattern):
        if phrase and mid_phrase:
            continue
        m = prefix.fullmatch(text) or (prefix.fullmatch(bare) if bare != text else None)
        if m is not None:
            return m
        if lead is None:
            continue
        if lead not in starts:
            starts[lead] = _word_starts(text.lower() if caseless else text, lead.lower() if caseless else lead)
        for at in starts[lead]:
            m = prefix.fullmatch(text, at) or (prefix.fullmatch(bare, at) if bare != text else None)
            if m is not None:
                return m
    return None


def _word_starts(text: str, lead: str) -> list[int]:
    """Where ``lead`` is in the text, not inside a word."""
    found, at = [], text.find(lead)
    while at >= 0:
        if not text[at - 1:at].isalnum():
            found.append(at)
        at = text.find(lead, at + 1)
    return found


def cut_values(m: re.Match) -> dict[str, str]:
    """The values a cut match shows: a group the cut closed (empty where the text stops) has none."""
    return {name: value for name, value in captured(m).items() if value}
