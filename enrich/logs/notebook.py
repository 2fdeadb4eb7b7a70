"""IPython's traceback, as Jupyter and notebook users paste it:

    ValueError                                Traceback (most recent call last)
    Cell In[4], line 3
    ----> 3 model = AutoModelForCausalLM.from_pretrained(path)
    File ~/.venv/.../configuration_auto.py:1115, in AutoConfig.from_pretrained(cls, ...)
       1114 except KeyError:
    -> 1115     raise ValueError(
       1116         f"The checkpoint you are trying to load has model type ..."
    ValueError: The checkpoint you are trying to load has model type `olmo2` but ...

The header names the type before any frame (so a paste cut before the last line still has it),
each frame prints numbered source lines around an arrow at the line that ran: the arrow's line
is the raise line, and the lines that finish its statement (a message's f-string) are evidence too.
A paste that cuts frames out leaves "..." and then the raise line of a frame it does not name.
"""

from __future__ import annotations

import re

from enrich.facts import Frame

HEADER = re.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s{2,}Traceback \(most recent call last\)\s*$")
FRAME = re.compile(r"^\s*File (?P<file>\S.*?):(?P<line>\d+), in (?P<func>[\w.<>]+)(?:\(|$)")
# VS Code's notebooks link the path: "File [/x/compiler.py:942](vscode-remote+...compiler.py:942), in f(...)"
LINKED_FRAME = re.compile(r"^\s*File \[(?P<file>[^\]]+?):(?P<line>\d+)\]\([^)\s]*\), in (?P<func>[\w.<>]+)(?:\(|$)")
# IPython 7 (Colab linking the path): "/x/compiler.py in make_ir(self, options)", the line only at
# the arrow; a cell is "<ipython-input-6-3d62c575fcfd> in <cell line: 1>()"
PLAIN_FRAME = re.compile(r"^\s*(?:\[(?P<linked>/[^\]]+?\.py|<ipython-input-[\w-]+>)\]\([^)\s]*\)|(?P<file>/\S+?\.py|<ipython-input-[\w-]+>))"
                         r" in (?P<func><[^<>]*>|[\w.]+)\(")
# Colab folds library frames: "25 frames"
FOLDED = re.compile(r"^\d+ frames$")
CELL = re.compile(r"^\s*(?:Cell In\s?\[\d*\]|Input In \[\d*\]), line (?P<line>\d+)")
# a numbered source line; VS Code links the number: "--> [951](vscode-remote+...auto.py:951)     config = ..."
SOURCE = re.compile(r"^(?P<arrow>-*>)?\s*(?:\d+|\[\d+\]\([^)\s]*\)) (?P<code>.*)$")
MAX_SOURCE = 400


def header_type(text: str) -> str | None:
    m = HEADER.match(text.strip())
    return m["type"] if m else None


def frame(text: str, module_of) -> Frame | None:
    m = FRAME.match(text) or LINKED_FRAME.match(text)
    if m:
        return Frame(module_of(m["file"]), m["func"], int(m["line"]), m["file"], _source="")
    m = PLAIN_FRAME.match(text)
    if m:
        path = m["linked"] or m["file"]
        if path.startswith("<"):
            return Frame("<cell>", "<module>", 0, "<cell>", _source="")
        return Frame(module_of(path), m["func"], 0, path, _source="")
    m = CELL.match(text)
    if m:
        return Frame("<cell>", "<module>", int(m["line"]), "<cell>", _source="")
    return None


def elided() -> Frame:
    """The frame of source lines printed after "...", where frames were cut out: its module is
    unknown (none of its lines names it)."""
    return Frame("", "", 0, "", _source="")


def add_source(current: Frame, text: str, open_brackets: int | None) -> tuple[bool, int | None]:
    """Read one numbered source line into the frame: the arrow's line becomes its source, and the
    lines that go on with its statement (a raise's message, over several lines) are appended.
    ``open_brackets``: None before the arrow, else the brackets the statement has left open.
    Returns (whether it was a numbered source line, the brackets still open)."""
    m = SOURCE.match(text.rstrip())
    if m is None:
        return False, open_brackets
    code = m["code"].strip()
    if m["arrow"]:
        current._source = code[:MAX_SOURCE]
        return True, unclosed(code)
    if open_brackets:
        current._source = (current._source + "\n" + code)[:MAX_SOURCE]
        return True, open_brackets + unclosed(code)
    return True, open_brackets


def unclosed(code: str) -> int:
    """Brackets the code opens and does not close."""
    return max(0, sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"))
