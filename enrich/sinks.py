"""Where an Enrichment goes besides the note: logs, telemetry. Each sink is a plain callable.

``sink(exception, enrichment)`` is called when an exception is first enriched and once more
if it reaches a terminal point (then ``enrichment.reported`` names it; see ``enrich.pipeline``);
a sink that raises is counted and ignored. A sink that buffers (telemetry exporters) may
have a ``flush(timeout_s)`` attribute, called where the process is about to die.
"""

from __future__ import annotations

from typing import Callable

from enrich import state
from enrich.guard import fail_open
from enrich.model import Enrichment

Sink = Callable[[BaseException, Enrichment], None]


def add_sink(sink: Sink) -> None:
    if sink not in state.sinks:
        state.sinks.append(sink)


def remove_sink(sink: Sink) -> None:
    if sink in state.sinks:
        state.sinks.remove(sink)


def emit(exc: BaseException, enrichment: Enrichment) -> None:
    for sink in list(state.sinks):
        with fail_open(f"sink {getattr(sink, '__qualname__', sink)}"):
            sink(exc, enrichment)


def flush(timeout_s: float = 2.0) -> None:
    for sink in list(state.sinks):
        flush_sink = getattr(sink, "flush", None)
        if callable(flush_sink):
            with fail_open(f"flush {getattr(sink, '__qualname__', sink)}"):
                flush_sink(timeout_s)
