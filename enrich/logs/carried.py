"""An error carried as text: a traceback inside a live exception's message (another process's
error re-raised by torch.multiprocessing, concurrent.futures, Ray, the engines' workers) or
inside a log record. The text is read like a log and its root cause explained."""

from __future__ import annotations

from enrich.catalog import Catalog, get_catalog
from enrich.model import Enrichment
from enrich.logs.findings import enrichment_of
from enrich.logs.reader import TRACEBACK, parse_text

MAX_TEXT = 1 << 20


def holds_traceback(text: str) -> bool:
    return TRACEBACK in text or ('File "' in text and '", line ' in text)


def explain_text(text: str, mechanism: str, catalog: Catalog | None = None) -> Enrichment | None:
    """The enrichment of the root cause among the errors in ``text``; None when none is known.
    The earliest error of a chain comes first; an entry that only wraps another comes last."""
    catalog = catalog or get_catalog()
    found = parse_text(text[-MAX_TEXT:])
    outer = {id(e.led_to) for e in found if e.led_to is not None}
    best = None
    for exc in found:
        known = enrichment_of(exc, catalog, mechanism)
        if known is None:
            continue
        enrichment = known[0]
        rank = (catalog.entries[enrichment.id].wrapper, id(exc) in outer, exc.kind != "exception")
        if best is None or rank < best[0]:
            best = (rank, enrichment)
    return best[1] if best else None


def explain_carried(exc: BaseException, mechanism: str) -> Enrichment | None:
    """The enrichment of the error whose traceback ``exc`` carries as its message text (read from
    its arguments: no ``__str__`` of an unknown class is called)."""
    args = getattr(exc, "args", None)
    texts = [a for a in args if isinstance(a, str) and holds_traceback(a)] if isinstance(args, tuple) else []
    return explain_text(texts[0], mechanism) if texts else None     # RayTaskError: (function, traceback, ...)
