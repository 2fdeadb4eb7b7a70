"""Put an Enrichment on its exception: one note, one private attribute, nothing else.

The attribute holds a plain dict, so it travels with the exception through
pickling (multiprocessing, Ray) and marks it as done: however many wrappers
the exception passes, it gets one note.
"""

from __future__ import annotations

from typing import Any

from enrich.model import Enrichment
from enrich.render.note import note

ATTR = "_enrich"


def record_of(exc: BaseException) -> dict[str, Any] | None:
    try:
        record = exc.__dict__.get(ATTR)
    except Exception:  # noqa: BLE001 - no __dict__, or a hostile one
        return None
    return record if isinstance(record, dict) else None


def attach(exc: BaseException, enrichment: Enrichment) -> bool:
    """Mark the exception and add the note; False when it refuses either (then it is left as it was)."""
    try:
        setattr(exc, ATTR, enrichment.as_dict())
    except Exception:  # noqa: BLE001
        return False
    try:
        add_note(exc, note(enrichment))
    except Exception:  # noqa: BLE001 - e.g. a __notes__ that is not a list
        try:
            delattr(exc, ATTR)
        except Exception:  # noqa: BLE001
            pass
        return False
    return True


def add_note(exc: BaseException, text: str) -> None:
    if hasattr(exc, "add_note"):
        exc.add_note(text)
        return
    # Python 3.10: the same attribute PEP 678 defines; shown by the exceptiongroup
    # backport's traceback patch, which install() makes sure is in place.
    notes = getattr(exc, "__notes__", None)
    if not isinstance(notes, list):
        notes = []
    notes.append(text)
    exc.__notes__ = notes
