"""OpenTelemetry sink: a span event (or an exception log record), ``error.type``, and a counter.

All of it only when the exception reaches a terminal point (``enrichment.reported``): one the
application catches and drops leaves no counter point and no span status.

Uses the OpenTelemetry API only: a no-op until the application configures an SDK.
Follows the exception semantic conventions (``exception.type``, ``exception.message``,
``exception.stacktrace``, ``error.type``). With OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN=logs the
exception is emitted as a log record instead of a span event; ``logs/dup`` does both.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
import traceback
from typing import Any, Callable

from enrich import forksafe
from enrich.facts import formats_itself, safe_message
from enrich.model import Enrichment
from enrich.redact import redact_text
from enrich.telemetry.ratelimit import RateLimit
from enrich.versions import VERSION

MAX_STACKTRACE = 32_768
# Terminal points after which the process is going down (severity FATAL for log records).
FATAL = ("seam:", "excepthook", "supervisor")
# Terminal points where the application caught the exception and reported it as an error.
CAUGHT = ("logging", "structlog", "annotate")


def fingerprint(enrichment: Enrichment) -> str:
    """Equal for the same error on every rank and host: entry, raise site and this case's summary."""
    key = f"{enrichment.id}|{enrichment.site}|{enrichment.summary}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def context_attributes(engine_context: Callable[[], dict] | None = None) -> dict[str, Any]:
    """Who is reporting: host, process, the launcher's ranks, and what ``engine_context`` (handed
    down by the installer from the integrations) can tell."""
    attributes: dict[str, Any] = {"host.name": socket.gethostname(), "process.pid": os.getpid()}
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        if os.environ.get(name, "").isdigit():
            attributes[f"enrich.{name.lower()}"] = int(os.environ[name])
    if engine_context is not None:
        attributes.update(engine_context())
    return attributes


def fix_template(entry_id: str) -> str:
    """The catalog's first fix as written (``--tp {valid}``), never with a process's values."""
    from enrich.catalog import get_catalog
    entry = get_catalog().entries.get(entry_id)
    return entry.fixes[0][0] if entry is not None and entry.fixes else ""


class OpenTelemetrySink:
    """Sink (see enrich.sinks) that reports enriched exceptions to OpenTelemetry."""

    def __init__(self, rate_limit: RateLimit | None = None, context: Callable[[], dict] | None = None):
        self.rate_limit = rate_limit or RateLimit()
        self.context = context
        self._instruments: tuple | None = None
        self._entries_seen: set[tuple[str, str]] = set()
        self._lock = forksafe.Lock()

    def _setup(self):
        if self._instruments is None:
            from opentelemetry import metrics, trace
            from opentelemetry._logs import get_logger

            meter = metrics.get_meter("enrich", VERSION)
            self._instruments = (
                trace.get_tracer("enrich", VERSION),
                get_logger("enrich", VERSION),
                meter.create_counter("enrich.exceptions", unit="{exception}",
                                     description="Exceptions recognised by enrich, by catalog entry"),
                meter.create_up_down_counter("enrich.entry", unit="1",
                                             description="Catalog entries seen, with their title and first fix"),
                # a process in a crash loop reports one exception per life, and its counter starts
                # again at 1: a time that moves is what shows the error coming back
                meter.create_gauge("enrich.exception.time", unit="s",
                                   description="When an exception of this entry last reached a terminal point "
                                               "(Unix time)"),
            )
        return self._instruments

    def __call__(self, exc: BaseException, enrichment: Enrichment) -> None:
        if not enrichment.reported:
            return   # seen on its way (note attached); the application may still handle it
        tracer, logger, counter, entries, last = self._setup()
        entrypoint = enrichment.mechanism.partition(":")[2] or enrichment.mechanism
        labels = {"error.type": enrichment.id, "enrich.engine": enrichment.engine,
                  "enrich.component": enrichment.component, "enrich.entrypoint": entrypoint,
                  "enrich.resolution": enrichment.resolution}
        counter.add(1, labels)
        last.set(time.time(), labels)
        template = fix_template(enrichment.id)
        with self._lock:
            new_entry = (enrichment.id, template) not in self._entries_seen
            self._entries_seen.add((enrichment.id, template))
        if new_entry:   # an info series (entry, title, fix template: few values): alert rules join it
            entries.add(1, {"error.type": enrichment.id, "enrich.title": enrichment.title, "enrich.fix": template})

        key = fingerprint(enrichment)
        allowed, suppressed = self.rate_limit.allow(key)
        if not allowed:
            return
        attributes = self.attributes(exc, enrichment, key, entrypoint)
        attributes.update(context_attributes(self.context))
        if suppressed:
            attributes["enrich.suppressed"] = suppressed
        signal = os.environ.get("OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN", "").strip().lower()
        if signal in ("logs", "logs/dup"):
            self._log_record(logger, exc, enrichment, attributes)
        if signal != "logs":
            self._span_event(tracer, enrichment, attributes)

    @staticmethod
    def attributes(exc: BaseException, enrichment: Enrichment, key: str, entrypoint: str) -> dict[str, Any]:
        try:
            if type(exc).__str__ is BaseException.__str__ or formats_itself(type(exc)):
                stack = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            else:   # never call a __str__ we do not know: the frames, then the message from args
                stack = "".join(traceback.format_tb(exc.__traceback__)) + \
                    f"{type(exc).__qualname__}: {safe_message(exc)}\n"
            stack = stack[-MAX_STACKTRACE:]
        except Exception:  # noqa: BLE001 - a hostile __notes__ or frame
            stack = ""
        return {
            "exception.type": f"{type(exc).__module__}.{type(exc).__qualname__}".removeprefix("builtins."),
            "exception.message": redact_text(safe_message(exc)),
            "exception.stacktrace": redact_text(stack),
            "error.type": enrichment.id,
            "enrich.id": enrichment.id,
            "enrich.title": enrichment.title,
            "enrich.summary": enrichment.summary,
            "enrich.fix": enrichment.fixes[0] if enrichment.fixes else "",
            "enrich.fixes": list(enrichment.fixes),
            "enrich.engine": enrichment.engine,
            "enrich.component": enrichment.component,
            "enrich.resolution": enrichment.resolution,
            "enrich.entrypoint": entrypoint,
            "enrich.mechanism": enrichment.mechanism,
            "enrich.reported": enrichment.reported,
            "enrich.handled": enrichment.reported.startswith(CAUGHT),
            "enrich.docs": enrichment.docs,
            "enrich.fingerprint": key,
            **{f"enrich.value.{k}": v for k, v in enrichment.values.items()},
        }

    @staticmethod
    def _span_event(tracer, enrichment: Enrichment, attributes: dict[str, Any]) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import Status, StatusCode

        span = trace.get_current_span()
        own = not span.is_recording()
        if own:   # sglang's request spans are never current: report on a short span of our own
            span = tracer.start_span(f"{enrichment.engine} {enrichment.component} error")
        try:
            span.add_event("exception", attributes)
            span.set_attribute("error.type", enrichment.id)
            span.set_attribute("enrich.resolution", enrichment.resolution)
            span.set_status(Status(StatusCode.ERROR, enrichment.summary))
        finally:
            if own:
                span.end()

    @staticmethod
    def _log_record(logger, exc: BaseException, enrichment: Enrichment, attributes: dict[str, Any]) -> None:
        from opentelemetry._logs import SeverityNumber

        fatal = enrichment.reported.startswith(FATAL)
        logger.emit(event_name=f"{enrichment.engine}.{enrichment.component}.exception",
                    severity_number=SeverityNumber.FATAL if fatal else SeverityNumber.ERROR,
                    severity_text="FATAL" if fatal else "ERROR",
                    body=enrichment.summary, attributes=attributes)

    def flush(self, timeout_s: float = 2.0) -> None:
        """Push buffered spans, logs and metrics out now: the process is about to be killed."""
        from opentelemetry import metrics, trace
        from opentelemetry._logs import get_logger_provider

        deadline = time.monotonic() + timeout_s
        for provider in (trace.get_tracer_provider(), get_logger_provider(), metrics.get_meter_provider()):
            left = deadline - time.monotonic()
            force_flush = getattr(provider, "force_flush", None)
            if left <= 0 or force_flush is None:
                continue
            try:
                force_flush(timeout_millis=int(left * 1000))
            except TypeError:
                force_flush()
