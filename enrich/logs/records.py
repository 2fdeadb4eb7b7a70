"""The text of a structured log record: one JSON object a line, as a JSON logger writes it
(python-json-logger's ``message`` and ``exc_info``, structlog's ``event`` and ``exception``) or a
collector exports it (Loki's ``line``, journalctl -o json's ``MESSAGE``, Cloud Logging's
``textPayload``). The message comes first, then each traceback the record carries under any key,
with its newlines back. So does a field of JSON printed over many lines whose string holds a
traceback (torchelastic's error file, an API's error body), and a string inside a line that holds
one (a client re-raising the server's error body as its repr)."""

from __future__ import annotations

import json
import re

# where a record keeps the line it logs, the first one present
MESSAGE_KEYS = ("message", "msg", "event", "line", "MESSAGE", "textPayload")
TRACEBACK_MARKS = ("Traceback (most recent call last)", '\n  File "')
ERROR_KEY = re.compile(r"(?i)err|exc")     # "error", "err", "exception", "exc_text": an error on one line
MAX_DEPTH = 3
# one field of JSON printed over many lines, its string value perhaps cut: "py_callstack": "Traceback ...
# (both on a line without its trailing spaces: no run of spaces to try twice)
FIELD = re.compile(r'^\s*"[\w.@$-]+"\s*:\s*"(?P<value>.*?)(?P<closed>(?<!\\)"[,}]?)?$')
CLOSING = re.compile(r'(?<!\\)"[,}]?$')       # the string's end, on a later piece of its line
ESCAPED_MARKS = ("Traceback (most recent call last):\\n", '\\n  File \\"')
ESCAPE = re.compile(r'\\(?:u(?P<hex>[0-9a-fA-F]{4})|x(?P<byte>[0-9a-fA-F]{2})|(?P<char>["\'\\/bfnrt]))')
CHARS = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# a string inside a line, a repr's or JSON's, that opens before its first escaped newline: an API's
# error body re-raised by its client ("Error: {'detail': 'Invalid request body!\\nCUDA error: ...")
OPENING_QUOTE = re.compile(r"""(?<!\\)['"]""")


def record_text(text: str) -> str | None:
    """The lines a JSON record holds, joined by newlines; None where the line is no such record."""
    if text[:1] != "{" or text.rstrip()[-1:] != "}":
        return None
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):    # not JSON, or nested past the parser's depth
        return None
    if not isinstance(record, dict):
        return None
    message = next((record[k] for k in MESSAGE_KEYS if isinstance(record.get(k), str)), None)
    parts = [message] if message is not None else []
    parts += [t for t in _tracebacks(record, 0) if t not in parts]
    parts += [v for k, v in record.items() if isinstance(v, str) and ERROR_KEY.search(k) and v not in parts]
    return "\n".join(p.rstrip("\n") for p in parts) if parts else None


def _tracebacks(value, depth: int) -> list[str]:
    """String values that hold a traceback, and structlog's dict tracebacks as their last line."""
    if isinstance(value, str):
        return [value] if any(mark in value for mark in TRACEBACK_MARKS) else []
    if depth >= MAX_DEPTH:
        return []
    if isinstance(value, dict):
        if isinstance(value.get("exc_type"), str) and isinstance(value.get("exc_value"), str):
            return [f"{value['exc_type']}: {value['exc_value']}"]
        value = list(value.values())
    if isinstance(value, list):
        return [t for item in value for t in _tracebacks(item, depth + 1)]
    return []


def escaped_traceback(text: str, going_on: bool) -> tuple[str, bool] | None:
    """(the lines, whether its string goes on past the line) of a line of JSON printed over many
    lines whose string holds a traceback ("py_callstack": "Traceback ...\\n  File ..."), or of the
    next piece of that string (``going_on``) where a page or terminal cut the line."""
    m, text = None, text.rstrip()
    if not going_on:
        if "\\n" not in text or not any(mark in text for mark in ESCAPED_MARKS):
            return None
        m = FIELD.match(text)
        if m is None:
            return _inside(text)
    value = m["value"] if m else text
    ends = CLOSING.search(value) if m is None else None
    if m is None and ends is None and not ESCAPE.search(value):
        return None                      # no piece of a JSON string: it was cut for good
    if ends is not None:
        value = value[:ends.start()]
    return _unescaped(value), (not m["closed"]) if m else ends is None


def _inside(text: str) -> tuple[str, bool] | None:
    """The line's words before a string that holds a traceback, then the string's lines (up to its
    closing quote, or to the line's end where it was cut)."""
    opening = list(OPENING_QUOTE.finditer(text, 0, text.index("\\n")))
    if not opening:
        return None
    start = opening[-1].start()
    quote, value = text[start], text[start + 1:]
    closing = re.search(r"(?<!\\)" + quote, value)
    value = value[:closing.start()] if closing else value
    return text[:start].rstrip() + "\n" + _unescaped(value), False


def _unescaped(value: str) -> str:
    """A string's contents, JSON's or a repr's escapes undone (also where a cut left it unfinished)."""
    return ESCAPE.sub(lambda m: chr(int(m["hex"] or m["byte"], 16)) if m["hex"] or m["byte"] else CHARS[m["char"]],
                      value)
