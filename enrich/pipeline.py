"""The one path every catch point takes: facts -> match -> explain -> attach -> sinks.

A catch point is terminal when the exception has ended up there (see ``TERMINAL``); elsewhere
(an entrypoint it passes through) the note is attached but the exception may yet be handled.
Sinks see an exception when it is first enriched and once more when it reaches a terminal
point (``enrichment.reported`` set): telemetry that alerts count is emitted only then.
"""

from __future__ import annotations

import dataclasses
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

# Mechanisms where an exception has ended up; the log integrations decide by the record's level.
TERMINAL = ("excepthook", "threading", "asyncio", "unraisable", "seam:", "annotate")


def process(exc: BaseException, mechanism: str, terminal: bool | None = None) -> Enrichment | None:
    """Enrich ``exc`` (or the first of its causes the catalog knows); never raises.

    ``terminal`` defaults to whether ``mechanism`` is one of ``TERMINAL``."""
    if not isinstance(exc, Exception) or getattr(_busy, "active", False):
        return None   # KeyboardInterrupt, SystemExit, CancelledError...; or re-entry from a sink
    _busy.active = True
    try:
        with fail_open("pipeline"):
            return _process(exc, mechanism, mechanism.startswith(TERMINAL) if terminal is None else terminal)
        return None
    finally:
        _busy.active = False


def _process(exc: BaseException, mechanism: str, terminal: bool) -> Enrichment | None:
    # Outermost first: the first member already enriched, or the first the catalog knows, is
    # the one explained (a new error raised while handling an enriched one gets its own). A
    # wrapper entry ("Capture cuda graph failed: ...") yields to a known error it wraps.
    catalog, wrapped, carried = None, None, None
    for member in facts_of.chain(exc):
        record = record_of(member)
        if record is not None:
            return _report(member, record, mechanism) if terminal else Enrichment.from_dict(record)
        catalog = catalog or get_catalog()
        facts = facts_of.from_exception(member)
        match = best_match(facts, catalog)
        if match is None:   # another process's traceback in its message: that error's note
            carried = carried or _carried(member, mechanism)
            continue
        if match.entry.wrapper:   # the error it wraps, if the catalog knows it, is the one to explain
            wrapped = wrapped or (member, explain(match, facts, mechanism))
            carried = carried or _carried(member, mechanism)   # torchrun's table with a worker's traceback
            continue
        return _attach(member, explain(match, facts, mechanism), mechanism if terminal else "")
    if carried:
        return _attach(exc, carried, mechanism if terminal else "")
    if wrapped:
        return _attach(*wrapped, mechanism if terminal else "")
    if settings.generic():   # unknown: the condition that raised it, from the raising frame
        generic = explain_site(facts_of.from_exception(exc), mechanism)
        if generic is not None:
            return _attach(exc, generic, mechanism if terminal else "")
    return None


def _carried(member: BaseException, mechanism: str) -> Enrichment | None:
    from enrich.logs.carried import explain_carried
    return explain_carried(member, mechanism)


def _attach(member: BaseException, enrichment: Enrichment, reported: str) -> Enrichment:
    with _attach_lock:   # the same object can be re-raised in several threads at once
        record = record_of(member)
        if record is None:
            enrichment = dataclasses.replace(enrichment, reported=reported)
            attached = attach(member, enrichment)
    if record is not None:   # another thread was first
        return _report(member, record, reported) if reported else Enrichment.from_dict(record)
    if attached:
        emit(member, enrichment)
    return enrichment


def _report(member: BaseException, record: dict, mechanism: str) -> Enrichment:
    """An enriched exception reached a terminal point: the sinks hear of it once more, and only once."""
    with _attach_lock:
        first = not record.get("reported")
        if first:
            record["reported"] = mechanism
        enrichment = Enrichment.from_dict(record)
    if first:
        emit(member, enrichment)
    return enrichment
