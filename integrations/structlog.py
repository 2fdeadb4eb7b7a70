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
note, so text renderers show it too. Frame locals are never added.
"""

from __future__ import annotations

import sys
from typing import Any

from enrich.guard import fail_open



def _exception(exc_info: Any) -> BaseException | None:
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple) and len(exc_info) == 3:
        return exc_info[1]
    if exc_info is True:
        return sys.exc_info()[1]
    return None


def add_enrichment(logger: Any, method_name: str, event_dict: dict) -> dict:
    with fail_open("structlog processor"):
        exc = _exception(event_dict.get("exc_info"))
        if exc is not None:
            from enrich.pipeline import process   # loaded with the first exception, not with logging set-up
            enrichment = process(exc, "structlog")
            if enrichment is not None:
                event_dict["enrich"] = enrichment.log_fields()
    return event_dict
