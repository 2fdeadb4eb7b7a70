"""structlog: a processor that adds the enrichment to events carrying ``exc_info``.

Place it before the processors that render or pop ``exc_info`` (format_exc_info,
dict_tracebacks, ExceptionRenderer):

    structlog.configure(processors=[
        structlog.processors.add_log_level,
        add_enrichment,                       # here
        structlog.processors.dict_tracebacks,
        structlog.processors.JSONRenderer(),
    ])

The event gets ``enrich`` = {id, title, summary, fixes, values, site, mechanism, resolution}; the exception gets its
note, so text renderers show it too. Where the chain ends in ``ConsoleRenderer``, which prints the
traceback with its note, the event gets only ``enrich_id`` (the note is shown once). An event at
error level or above is a terminal point (counted in telemetry). Frame locals are never added.
"""

from __future__ import annotations

import sys
from typing import Any

from enrich.guard import fail_open

# At these levels an event with an exception is a terminal point (counted in telemetry).
ERROR_LEVELS = {"error", "err", "exception", "critical", "fatal"}


def _exception(exc_info: Any) -> BaseException | None:
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple) and len(exc_info) == 3:
        return exc_info[1]
    if exc_info is True:
        return sys.exc_info()[1]
    return None


def _renders_to_console() -> bool:
    """Whether the configured chain ends in structlog's ConsoleRenderer, whose traceback shows the note."""
    import structlog
    processors = structlog.get_config().get("processors") or [None]
    return isinstance(processors[-1], structlog.dev.ConsoleRenderer)


def add_enrichment(logger: Any, method_name: str, event_dict: dict) -> dict:
    with fail_open("structlog processor"):
        exc = _exception(event_dict.get("exc_info"))
        if exc is not None:
            from enrich.pipeline import process   # loaded with the first exception, not with logging set-up
            level = str(event_dict.get("level", method_name)).lower()
            enrichment = process(exc, "structlog", terminal=level in ERROR_LEVELS)
            if enrichment is not None and _renders_to_console():
                event_dict["enrich_id"] = enrichment.id   # the note is in the traceback it prints
            elif enrichment is not None:
                event_dict["enrich"] = enrichment.log_fields()
    return event_dict
