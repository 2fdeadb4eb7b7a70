"""Read the few values a catalog entry declares from the raising frame, safely.

A path is a local name followed by attributes and integer indexes:
``self.attn_tp_size``, ``config.num_key_value_heads``, ``layer_list[0]``.
Nothing else in the frame is touched. Values are kept raw for fix helpers and
shown through :func:`display`, which never calls ``repr()`` on arbitrary
objects (tensors above all) and caps every string.
"""

from __future__ import annotations

import re
from types import FrameType
from typing import Any

from enrich.redact import MASK, is_secret_key, redact_text

MAX_TEXT = 120
MAX_DERIVED = 480    # text a helper composed from values (it is ours, and worth reading whole)
MAX_ITEMS = 8
_STEP = re.compile(r"\.([A-Za-z_]\w*)|\[(-?\d+)\]")
PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[-?\d+\])*$")
_MISSING = object()


def read_path(frame: FrameType, path: str) -> Any:
    """The value at ``path`` in ``frame``, or ``None`` when any step is missing."""
    head = re.match(r"[A-Za-z_]\w*", path)
    if head is None:
        return None
    value = frame.f_locals.get(head.group(0), _MISSING)
    for step in _STEP.finditer(path, head.end()):
        if value is _MISSING:
            break
        attr, index = step.groups()
        try:
            value = getattr(value, attr) if attr else value[int(index)]
        except Exception:  # noqa: BLE001 - absent or raising attribute: treat as missing
            value = _MISSING
    return None if value is _MISSING else value


def capture(frame: FrameType | None, paths: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """For each declared name, the value of the first of its paths that is present."""
    if frame is None:
        return {}
    values = {}
    for name, alternatives in paths.items():
        for path in alternatives:
            value = read_path(frame, path)
            if value is not None:
                values[name] = value
                break
    return values


def display(value: Any, key: str = "", limit: int = MAX_TEXT) -> str:
    """A short, safe text for a captured value (``limit`` caps strings)."""
    if key and is_secret_key(key):
        return MASK
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, str):
        return _cap(redact_text(value), limit)
    if isinstance(value, type):
        return value.__qualname__
    shape = getattr(type(value), "shape", None) is not None and getattr(value, "shape", None)
    if shape is not None and shape is not False and hasattr(value, "dtype"):
        return f"{type(value).__name__}(shape={_shape(shape)}, dtype={_cap(str(value.dtype))})"
    if isinstance(value, (list, tuple)) and len(value) <= MAX_ITEMS and all(
            isinstance(v, (bool, int, float, str)) for v in value):
        return _cap(", ".join(display(v) for v in value))
    return f"<{type(value).__name__}>"


def _shape(shape: Any) -> str:
    try:
        return "(" + ", ".join(str(int(d)) for d in tuple(shape)[:MAX_ITEMS]) + ")"
    except Exception:  # noqa: BLE001
        return "?"


def _cap(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
