"""What a message pattern requires: its literal runs and whole words (for the index and lint)."""

from __future__ import annotations

import re

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

# "expected__2": the same value captured in another alternative (re forbids a name twice)
ALIAS = re.compile(r"__\d+$")

# A word starts where no word character precedes it, in messages and in patterns alike.
WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{2,}")
SYNTAX = re.compile(r"\(\?P<\w+>|\(\?P=\w+\)|\\[A-Za-z]")      # group names and escapes are not words


def captured(m: re.Match) -> dict[str, str]:
    """The values a match captured, by name; an alias (``name__2``) counts as its name."""
    return {ALIAS.sub("", k): v for k, v in m.groupdict().items() if v is not None}


def group_names(pattern: re.Pattern | None) -> set[str]:
    return {ALIAS.sub("", name) for name in pattern.groupindex} if pattern is not None else set()


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


def written_words(pattern: str) -> list[str]:
    """Every word written in a pattern, optional parts and alternatives too."""
    return WORD.findall(SYNTAX.sub(" ", pattern))


def required_words(pattern: re.Pattern) -> set[str]:
    """Words any match of the pattern must contain, as whole words of the message."""
    return {w for text in literal_runs(pattern) for w in _whole_words(text)}


def syntax(pattern: str):
    """(position, character, depth) of each top-level syntax character: escapes and character
    classes skipped, depth counting open groups before the character."""
    depth, i = 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = pattern.find("]", i + 2)
            i = end + 1 if end > 0 else i + 1
            continue
        yield i, c, depth
        depth += (c == "(") - (c == ")")
        i += 1


def branches(pattern: str) -> list[str]:
    """The pattern as a list of alternatives when it is one alternation at the top (``A|B``,
    ``^(?:A|B)``); else the pattern alone."""
    body, anchor = (pattern[1:], "^") if pattern.startswith("^") else (pattern, "")
    closing = next((i for i, c, depth in syntax(body) if c == ")" and depth == 1), -1)
    if body.startswith("(?:") and closing == len(body) - 1:
        body = body[3:-1]
    cuts = [i for i, c, depth in syntax(body) if c == "|" and depth == 0]
    if not cuts:
        return [pattern]
    bounds = [-1, *cuts, len(body)]
    return [anchor + body[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def top_alternatives(pattern: str) -> list | None:
    """The alternatives (parsed item lists) of a pattern that is one alternation at the top;
    None for any other pattern. Each is parsed alone: parsed whole, re moves what every
    alternative starts with (the \\b, or the letters of "^Weights only...|^WeightsUnpickler...") out
    in front of the alternation."""
    parts = branches(pattern)
    if len(parts) < 2:
        return None
    try:
        return [list(sre_parse.parse(part)) for part in parts]
    except Exception:  # noqa: BLE001
        return None


def alternative_runs(pattern: re.Pattern) -> list[list[str]]:
    """For a pattern that is one alternation at the top: the literal runs of each alternative.
    Otherwise one list, the pattern's literal runs."""
    items = _parsed(pattern)
    if items is None:
        return [[]]
    alternatives = top_alternatives(pattern.pattern)
    return ([literal_runs(pattern, branch) for branch in alternatives] if alternatives is not None
            else [literal_runs(pattern, items)])


def alternative_words(pattern: re.Pattern) -> list[set[str]]:
    """For a pattern that is one alternation at the top: the words each alternative requires.
    Otherwise one set, the pattern's required words."""
    return [set(words) for words in alternative_word_lists(pattern)]


def alternative_word_lists(pattern: re.Pattern) -> list[list[str]]:
    """The words each alternative requires, in the order it writes them."""
    return [[w for text in runs for w in _whole_words(text)] for runs in alternative_runs(pattern)]


def _whole_words(run: str) -> list[str]:
    """Words inside a literal run; one touching the run's edge may continue into a group."""
    return [m.group() for m in WORD.finditer(run) if 0 < m.start() and m.end() < len(run)]
