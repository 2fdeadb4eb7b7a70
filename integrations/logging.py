"""Standard logging: enrich records that carry an exception.

    import logging
    from enrich.integrations.logging import EnrichFilter
    handler.addFilter(EnrichFilter())      # on handlers: logger filters miss propagated records

The exception gets its note before the handler formats it (so the note is in plain-text
logs); a record at ERROR or above is a terminal point (counted in telemetry, see
``enrich.pipeline``), one below it is a handled exception. The record gets ``record.enrich``
(id, title, summary, fixes, values, site, mechanism, resolution), ``record.enrich_id`` and
``record.enrich_resolution`` for JSON formatters and log pipelines. A record whose message carries a
traceback as text (sglang's "Scheduler hit an exception: Traceback ...", vLLM's worker lines)
gets the same: the fields, and the note appended to its message.
"""

from __future__ import annotations

import logging

from enrich.guard import fail_open

TRACEBACK = "Traceback (most recent call last):"


class EnrichFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("enrich"):
            return True   # never enrich enrich's own reports
        with fail_open("logging filter"):
            exc = record.exc_info[1] if isinstance(record.exc_info, tuple) else None
            if exc is not None:
                from enrich.pipeline import process   # loaded with the first exception, not with logging set-up
                enrichment = process(exc, "logging", terminal=record.levelno >= logging.ERROR)
                if enrichment is not None:
                    _put(record, enrichment)
                    record.exc_text = None   # formatted again, now with the note
            elif _carries_traceback(record):
                self._text_traceback(record, record.getMessage())   # %-style args formatted in
        return True

    @staticmethod
    def _text_traceback(record: logging.LogRecord, message: str) -> None:
        from enrich.logs.carried import explain_text
        from enrich.render.note import note

        enrichment = explain_text(message, "log-text")
        if enrichment is None:
            return
        _put(record, enrichment)
        if f"[{enrichment.id}]" not in message:   # enriched already where it was raised
            record.msg, record.args = f"{message}\n{note(enrichment)}", None


def _carries_traceback(record: logging.LogRecord) -> bool:
    args = record.args if isinstance(record.args, tuple) else (record.args,) if record.args else ()
    return any(isinstance(part, str) and TRACEBACK in part for part in (record.msg, *args))


def _put(record: logging.LogRecord, enrichment) -> None:
    record.enrich = enrichment.log_fields()
    record.enrich_id = enrichment.id
    record.enrich_resolution = enrichment.resolution


def instrument(logger: logging.Logger | None = None) -> EnrichFilter:
    """Add one EnrichFilter to every handler of ``logger`` (the root logger by default)."""
    target = logger or logging.getLogger()
    flt = next((f for h in target.handlers for f in h.filters if isinstance(f, EnrichFilter)), EnrichFilter())
    for handler in target.handlers:
        if flt not in handler.filters:
            handler.addFilter(flt)
    return flt
