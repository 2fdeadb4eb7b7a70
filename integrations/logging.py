"""Standard logging: enrich records that carry an exception.

    import logging
    from enrich.integrations.logging import EnrichFilter
    handler.addFilter(EnrichFilter())      # on handlers: logger filters miss propagated records

The exception gets its note before the handler formats it (so the note is in plain-text
logs), and the record gets ``record.enrich`` (id, title, summary, fixes, values, site) and
``record.enrich_id`` for JSON formatters and log pipelines.
"""

from __future__ import annotations

import logging

from enrich.guard import fail_open

FIELDS = ("id", "title", "summary", "fixes", "values", "site", "mechanism")


class EnrichFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("enrich"):
            return True   # never enrich enrich's own reports
        with fail_open("logging filter"):
            exc = record.exc_info[1] if isinstance(record.exc_info, tuple) else None
            if exc is not None:
                from enrich.pipeline import process
                enrichment = process(exc, "logging")
                if enrichment is not None:
                    data = enrichment.as_dict()
                    record.enrich = {k: data[k] for k in FIELDS}
                    record.enrich_id = enrichment.id
                    record.exc_text = None   # formatted again, now with the note
        return True


def instrument(logger: logging.Logger | None = None) -> EnrichFilter:
    """Add one EnrichFilter to every handler of ``logger`` (the root logger by default)."""
    target = logger or logging.getLogger()
    flt = next((f for h in target.handlers for f in h.filters if isinstance(f, EnrichFilter)), EnrichFilter())
    for handler in target.handlers:
        if flt not in handler.filters:
            handler.addFilter(flt)
    return flt
