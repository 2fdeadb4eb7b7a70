"""Paste damage undone: rich's boxed tracebacks back to Python's layout, tracebacks whose
newlines were lost back on their lines."""

from __future__ import annotations

import re

TRACEBACK = "Traceback (most recent call last):"
BOX = "│╭╰┌└├┃"
RICH_HEADER = re.compile(r"^[╭┌].*Traceback")
PANEL_BORDERS = re.compile(r"^[│┃] ?|\s*[│┃]\s*$")
RICH_FRAME = re.compile(r"^│ (?P<path>\S+?):(?P<line>\d+) in (?P<func>[\w<>.]+)\s*│?\s*$")
RICH_SOURCE = re.compile(r"^│ ❱ *\d+ │(?P<source>.*?)\s*│?\s*$")
# the first part of a frame's path that rich wrapped at the box's width ("│ /usr/.../configurati │")
RICH_PATH_PART = re.compile(r"^│ (?P<path>[/\\~.\w-][^\s│:]*)\s*│\s*$")
COLLAPSED = re.compile(r" (?=File \"[^\"]+\", line \d+)|(?<=\S) (?=Traceback \(most recent call last\):)"
                       r"|(?<=\S) (?=(?:The above exception|During handling of the above exception))"
                       r"|(?<=exception:) (?=\S)|(?<=occurred:) (?=\S)")
COLLAPSED_FRAME = re.compile(r'^(?P<frame>File "[^"]+", line \d+(?:, in [\w<>.]+)?) (?P<rest>.+)$')
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
