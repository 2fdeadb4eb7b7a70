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


def required_words(pattern: re.Pattern) -> set[str]:
    """Words any match of the pattern must contain, as whole words of the message."""
    return {w for text in literal_runs(pattern) for w in _whole_words(text)}


def top_alternatives(items) -> list | None:
    """The alternatives (parsed item lists) of a parsed pattern that is one alternation at the
    top (``A|B``, ``^(?:A|B)``); None for any other pattern."""
    # an anchor before the alternation (re moves a \b every alternative starts with out in front
    # of them) belongs to each alternative
    lead = [item for item in items[:1] if item[0] is sre_parse.AT]
    body = [item for item in items if item[0] is not sre_parse.AT]
    if len(body) == 1 and body[0][0] is sre_parse.SUBPATTERN:
        body = list(body[0][1][-1])
        lead += [item for item in body[:1] if item[0] is sre_parse.AT]
        body = [item for item in body if item[0] is not sre_parse.AT]
    if len(body) == 1 and body[0][0] is sre_parse.BRANCH:
        return [lead + list(branch) for branch in body[0][1][1]]
    return None


def alternative_runs(pattern: re.Pattern) -> list[list[str]]:
    """For a pattern that is one alternation at the top: the literal runs of each alternative.
    Otherwise one list, the pattern's literal runs."""
    items = _parsed(pattern)
    if items is None:
        return [[]]
    branches = top_alternatives(items)
    return [literal_runs(pattern, branch) for branch in branches] if branches is not None else [literal_runs(pattern, items)]


def alternative_words(pattern: re.Pattern) -> list[set[str]]:
    """For a pattern that is one alternation at the top: the words each alternative requires.
    Otherwise one set, the pattern's required words."""
    return [{w for text in runs for w in _whole_words(text)} for runs in alternative_runs(pattern)]


def _whole_words(run: str) -> list[str]:
    """Words inside a literal run; one touching the run's edge may continue into a group."""
    return [m.group() for m in WORD.finditer(run) if 0 < m.start() and m.end() < len(run)]
