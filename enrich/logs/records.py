"""The text of a structured log record: one JSON object a line, as a JSON logger writes it
(python-json-logger's ``message`` and ``exc_info``, structlog's ``event`` and ``exception``) or a
collector exports it (Loki's ``line``, journalctl -o json's ``MESSAGE``, Cloud Logging's
``textPayload``). The message comes first, then each traceback the record carries under any key,
with its newlines back."""

from __future__ import annotations

import json

# where a record keeps the line it logs, the first one present
MESSAGE_KEYS = ("message", "msg", "event", "line", "MESSAGE", "textPayload")
TRACEBACK_MARKS = ("Traceback (most recent call last)", '\n  File "')
MAX_DEPTH = 3


def record_text(text: str) -> str | None:
    """The lines a JSON record holds, joined by newlines; None where the line is no such record."""
    if not (text[:1] == "{" and text.rstrip()[-1:] == "}"):
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    message = next((record[k] for k in MESSAGE_KEYS if isinstance(record.get(k), str)), None)
    parts = [message] if message is not None else []
    parts += [t for t in _tracebacks(record, 0) if t is not message and t not in parts]
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
