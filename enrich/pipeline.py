"""The one path every catch point takes: facts -> match -> explain -> attach -> sinks."""

from __future__ import annotations

import threading

from enrich import facts as facts_of
from enrich import forksafe
from enrich.attach import attach, record_of
from enrich.catalog import get_catalog
from enrich import settings
from enrich.explain import explain
from enrich.model import Enrichment
from enrich.generic import explain_site
from enrich.guard import fail_open
from enrich.match import best_match
from enrich.sinks import emit

_busy = threading.local()
_attach_lock = forksafe.Lock()


def process(exc: BaseException, mechanism: str) -> Enrichment | None:
    """Enrich ``exc`` (or the first of its causes the catalog knows); never raises."""
    if not isinstance(exc, Exception) or getattr(_busy, "active", False):
        return None   # KeyboardInterrupt, SystemExit, CancelledError...; or re-entry from a sink
    _busy.active = True
    try:
        with fail_open("pipeline"):
            return _process(exc, mechanism)
        return None
    finally:
        _busy.active = False


def _process(exc: BaseException, mechanism: str) -> Enrichment | None:
    # Outermost first: the first member already enriched, or the first the catalog knows, is
    # the one explained (a new error raised while handling an enriched one gets its own). A
    # wrapper entry ("Capture cuda graph failed: ...") yields to a known error it wraps.
    catalog, wrapped = None, None
    for member in facts_of.chain(exc):
        record = record_of(member)
        if record is not None:
            return Enrichment.from_dict(record)
        catalog = catalog or get_catalog()
        facts = facts_of.from_exception(member)
        match = best_match(facts, catalog)
        if match is None:
            continue
        if match.entry.wrapper:   # the error it wraps, if the catalog knows it, is the one to explain
            wrapped = wrapped or (member, explain(match, facts, mechanism))
            continue
        return _attach(member, explain(match, facts, mechanism))
    if wrapped:
        return _attach(*wrapped)
    if settings.generic():   # unknown: the condition that raised it, from the raising frame
        generic = explain_site(facts_of.from_exception(exc), mechanism)
        if generic is not None:
            return _attach(exc, generic)
    return None


def _attach(member: BaseException, enrichment: Enrichment) -> Enrichment:
    with _attach_lock:   # the same object can be re-raised in several threads at once
        record = record_of(member)
        if record is not None:
            return Enrichment.from_dict(record)
        attached = attach(member, enrichment)
    if attached:
        emit(member, enrichment)
    return enrichment
