"""Paste damage undone: rich's boxed tracebacks back to Python's layout, tracebacks whose
newlines were lost back on their lines, lines a terminal wrapped at its width joined."""

from __future__ import annotations

import re

TRACEBACK = "Traceback (most recent call last):"
BOX = "│╭╰┌└├┃"
RICH_HEADER = re.compile(r"^[╭┌].*Traceback")
PANEL_BORDERS = re.compile(r"^[│┃] ?|\s*[│┃]\s*$")
RICH_FRAME = re.compile(r"^│ (?P<path>\S+?):(?P<line>\d+) in (?P<func>[\w<>.]+)\s*│?\s*$")
RICH_SOURCE = re.compile(r"^│ ❱ *\d+ │(?P<source>.*?)\s*│?\s*$")
# the first part of a frame's header that rich wrapped at the box's width: within its path
# ("│ /usr/.../configurati │"), or before its function's name ("│ /usr/.../utils.py:261 in │",
# kept with the space before the name)
RICH_PATH_PART = re.compile(r"^│ (?P<path>[/\\~.\w-](?:[^\s│:]*|\S*:\d+ in ))\s*│\s*$")
COLLAPSED = re.compile(r" (?=File \"[^\"]+\", line \d+)|(?<=\S) (?=Traceback \(most recent call last\):)"
                       r"|(?<=\S) (?=(?:The above exception|During handling of the above exception))"
                       r"|(?<=exception:) (?=\S)|(?<=occurred:) (?=\S)")
# a progress bar redrawn over its line ("... 5966.29it/s]", spaces, then what was printed next, then
# the bar again): the carriage returns were lost in the paste
REDRAWN = re.compile(r"(?<=/s\]) {3,}(?=\S)| {3,}(?=\|? *\d+/\d+ \[[\d:?]+<)")
COLLAPSED_FRAME = re.compile(r'^(?P<frame>File "[^"]+", line \d+(?:, in [\w<>.]+)?) (?P<rest>.+)$')
FENCE = re.compile(r"^\s*(?:```|~~~)")
TABLE = re.compile(r"^\s*[|+\u2500-\u257f-]")         # table rows and rules: lines of one width by design
# a line that starts a record of its own: the one before it was cut at the width, not wrapped
RECORD_START = re.compile(r"(?:\[|\(|\d{4}-\d\d-\d\d|\d\d[-/:]\d\d|[A-Z][a-z]{2} [ \d]\d |[IWEF]\d{4} |frame #\d"
                          r"|File \"|Traceback|Exception raised|terminate called|During handling|The above exception)")
MIN_WIDTH = 60        # narrower lines of one length are a coincidence, not a terminal's width
MIN_WRAPPED = 3       # distinct lines of exactly that width a block needs (a repeated record is one)
EXCEPTION_START = re.compile(r"(?:^|(?<=\s))(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Failure)"
                             r"(?:\([\w.]+\))?:(?: |$)")


def rich_line(content: str, panel: bool = False, path_head: str = "") -> str:
    """A line of rich's boxed traceback as Python prints it; the box itself goes. ``panel``: the
    box is a panel of text (Modal's "Error" box), whose lines are kept without their borders.
    ``path_head``: the start of a frame's path, wrapped onto the line before."""
    if panel:
        return PANEL_BORDERS.sub("", content) if content[0] in "│┃" else ""
    m = RICH_FRAME.match("│ " + path_head + content[1:].lstrip()) if path_head else None
    m = m or RICH_FRAME.match(content)
    if m:
        return f'  File "{m["path"]}", line {m["line"]}, in {m["func"]}'
    m = RICH_SOURCE.match(content)
    if m:
        return "    " + m["source"].strip().lstrip("│ ")      # rich's indent guides go too
    if RICH_HEADER.match(content):
        return TRACEBACK
    return ""


def split_collapsed(content: str) -> list[str]:
    """A traceback whose newlines were lost, back on its lines."""
    parts = [p for p in COLLAPSED.split(content) if p]
    lines: list[str] = []
    for part in parts:
        m = COLLAPSED_FRAME.match(part)
        if m is None:
            lines.append(part)
            continue
        lines.append("  " + m["frame"])
        rest = m["rest"]
        exc = EXCEPTION_START.search(rest)
        if exc is not None:
            if rest[:exc.start()].strip():
                lines.append("    " + rest[:exc.start()].strip())
            lines.append(rest[exc.start():])
        else:
            lines.append("    " + rest.strip())
    return lines


def split_redrawn(content: str) -> list[str]:
    """A line a progress bar was redrawn over, back on the lines printed in turn."""
    return [part for part in REDRAWN.split(content) if part.strip()]


def wrapped_rows(texts: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each line of the text, where a terminal wrapped some at its width: in a
    block (between code fences) whose longest length at least three distinct lines share, a line
    of that length goes on in the next ("... Watchdog caught colle" / "ctive operation timeout
    ...") where the next starts no record of its own. Lines that were not wrapped are one row."""
    rows: list[tuple[int, int]] = []
    start = 0
    while start < len(texts):
        end = start
        while end < len(texts) and not FENCE.match(texts[end]):
            end += 1
        width = max(map(len, texts[start:end]), default=0)
        wrapped = width >= MIN_WIDTH and len({t for t in texts[start:end] if len(t) == width}) >= MIN_WRAPPED
        i = start
        while i < end:
            first = i
            while wrapped and len(texts[i]) == width and i + 1 < end and _goes_on(texts[first], texts[i], texts[i + 1]):
                i += 1
            rows.append((first, i + 1))
            i += 1
        if end < len(texts):               # the fence itself
            rows.append((end, end + 1))
        start = end + 1
    return rows


def _goes_on(record: str, piece: str, following: str) -> bool:
    """``following`` is the rest of the line ``piece`` ends, not a line of its own: not indented
    (one space is the one the wrap fell on) or empty, not a table row, not a record's start (a
    log cut at the width starts the next record the way it started this one: "frame #1: ...",
    "[rank3]:[E ...")."""
    first = record.split(" ", 1)[0]
    rest = following[1:] if following[:1] == " " else following
    return (bool(rest[:1].strip()) and not TABLE.match(piece) and not RECORD_START.match(rest)
            and not (len(first) >= 3 and rest.startswith(first)))
