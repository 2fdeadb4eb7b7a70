"""OpenTelemetry output, checked with the real SDK and in-memory exporters.

Telemetry that alerts count is emitted when an exception reaches a terminal point (uncaught in
a thread or process, asyncio's handler, a seam, a record logged at ERROR, annotate()); one the
application catches and drops only gets its note."""

import asyncio
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from opentelemetry import metrics, trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import enrich
from enrich.activation.integration import Integration, Target
from enrich.telemetry.otel import RateLimit, fingerprint

from conftest import FIXTURES

DEMO = Integration(name="demo", targets=(Target("launch", "demo_targets", "launch"),
                                         Target("load", "demo_targets", "Loader.load")))


@pytest.fixture(scope="session")
def otel():
    spans, logs, reader = InMemorySpanExporter(), InMemoryLogRecordExporter(), InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(provider)
    log_provider = LoggerProvider()
    log_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    set_logger_provider(log_provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    from enrich.activation.installer import _telemetry_sink
    _telemetry_sink()._entries_seen.clear()     # entries an earlier test reported have their info series elsewhere
    return spans, logs, reader


@pytest.fixture
def recorded(otel, demo_catalog, monkeypatch):
    spans, logs, reader = otel
    spans.clear()
    logs.clear()
    monkeypatch.delenv("OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN", raising=False)
    enrich.install(integrations=[DEMO])
    from enrich.activation.installer import _telemetry_sink
    _telemetry_sink().rate_limit = RateLimit()      # each test starts with a fresh burst allowance
    import demo_targets
    yield spans, logs, reader, demo_targets
    enrich.uninstall()


def uncaught_in_thread(fn, *args):
    """Let fn's exception end a thread: threading.excepthook, a terminal point."""
    thread = threading.Thread(target=fn, args=args)
    thread.start()
    thread.join()


def reported(fn, *args):
    """What an application does that reports an error it caught: annotate() it."""
    try:
        fn(*args)
    except AssertionError as exc:
        return enrich.annotate(exc)


def counted(reader, entry="demo/not-divisible") -> int:
    return sum(p.value for p in counter_points(reader, "enrich.exceptions") if p.attributes["error.type"] == entry)


def counter_points(reader, name):
    data = reader.get_metrics_data()
    return [p for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
            if m.name == name for p in m.data.data_points]


def test_one_event_on_the_current_span_with_semconv_attributes(recorded):
    spans, _, _, demo_targets = recorded
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("model load"):
        reported(demo_targets.Loader().load, 16, 6)          # two wrapped layers, one event
    [span] = spans.get_finished_spans()
    assert span.name == "model load" and span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "demo/not-divisible"
    [event] = [e for e in span.events if e.name == "exception" and "enrich.id" in e.attributes]
    a = event.attributes
    assert a["exception.type"] == "AssertionError" and a["exception.message"] == "16 is not divisible by 6"
    assert "[demo/not-divisible] 16 cannot be cut into 6 shards" in a["exception.stacktrace"]   # note included
    assert a["enrich.fix"] == "use one of 1, 2, 4, 8, 16" and a["enrich.entrypoint"] == "demo.launch"
    assert a["enrich.mechanism"] == "entrypoint:demo.launch" and a["enrich.reported"] == "annotate"
    assert a["enrich.handled"] is True
    assert a["enrich.value.numerator"] == "16" and a["enrich.value.secret_token"] == "[redacted]"
    assert a["host.name"] and a["enrich.docs"] == "enrich explain demo/not-divisible"
    assert len(a["enrich.fingerprint"]) == 16


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_own_short_span_when_none_is_recording(recorded):
    spans, _, _, demo_targets = recorded
    uncaught_in_thread(demo_targets.launch, 9, 2)
    [span] = spans.get_finished_spans()
    assert span.name == "demo distributed error" and span.attributes["error.type"] == "demo/not-divisible"
    [event] = span.events
    assert event.attributes["enrich.reported"] == "threading" and event.attributes["enrich.handled"] is False


@pytest.mark.parametrize("signal, n_logs, n_spans", [("logs", 1, 0), ("logs/dup", 1, 1)])
def test_exceptions_as_log_records(recorded, monkeypatch, signal, n_logs, n_spans):
    spans, logs, _, demo_targets = recorded
    monkeypatch.setenv("OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN", signal)
    reported(demo_targets.launch, 9, 2)
    records = [r.log_record for r in logs.get_finished_logs()]
    assert len(records) == n_logs and len(spans.get_finished_spans()) == n_spans
    record = records[0]
    assert record.event_name == "demo.distributed.exception" and record.severity_text == "ERROR"
    assert record.attributes["error.type"] == "demo/not-divisible"
    assert record.attributes["exception.type"] == "AssertionError"


def test_counter_is_exact_while_events_are_rate_limited(recorded):
    spans, _, reader, demo_targets = recorded
    before = counted(reader)
    for _ in range(50):
        reported(demo_targets.launch, 11, 2)
    points = [p for p in counter_points(reader, "enrich.exceptions") if p.attributes["error.type"] == "demo/not-divisible"]
    assert sum(p.value for p in points) - before == 50
    assert {p.attributes["enrich.entrypoint"] for p in points} == {"demo.launch"}
    assert len(spans.get_finished_spans()) == 5   # the burst; the rest is counted, not exported
    # the info series has the fix as written in the catalog: one series per entry, whatever the values
    [info] = [p for p in counter_points(reader, "enrich.entry") if p.attributes["error.type"] == "demo/not-divisible"]
    assert info.value == 1 and info.attributes["enrich.title"] == "Not divisible"
    assert info.attributes["enrich.fix"] == "use one of {sizes}"


def test_the_last_exception_time_moves_at_each_report_only(recorded):
    _, _, reader, demo_targets = recorded

    def last() -> float | None:
        points = [p for p in counter_points(reader, "enrich.exception.time")
                  if p.attributes["error.type"] == "demo/not-divisible"]
        return points[0].value if points else None

    start = time.time()
    reported(demo_targets.launch, 11, 2)
    first = last()
    assert first is not None and start <= first <= time.time()
    try:
        demo_targets.launch(12, 5)
    except AssertionError:
        pass                                 # handled: no report, the time stays
    assert last() == first
    time.sleep(0.01)
    reported(demo_targets.launch, 11, 2)
    assert last() > first


def test_caught_and_dropped_leaves_no_counter_point_and_the_span_status_alone(recorded):
    spans, _, reader, demo_targets = recorded
    before = counted(reader)
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("request"):
        for _ in range(3):
            try:
                demo_targets.launch(12, 5)
            except AssertionError as exc:
                dropped = exc            # the application handles it: retries, falls back...
    [span] = spans.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET and "error.type" not in span.attributes
    assert not [e for e in span.events if e.name == "exception"]
    assert counted(reader) == before
    assert "[demo/not-divisible] 12 cannot be cut into 5 shards" in dropped.__notes__[0]   # the note is there


def test_logged_at_error_counts_at_warning_does_not(recorded):
    _, _, reader, demo_targets = recorded
    from enrich.integrations.logging import EnrichFilter
    logger, handler = logging.getLogger("app.telemetry"), logging.NullHandler()
    handler.addFilter(EnrichFilter())
    logger.addHandler(handler)
    try:
        before = counted(reader)
        for level in (logging.WARNING, logging.INFO):
            try:
                demo_targets.launch(13, 4)
            except AssertionError:
                logger.log(level, "retrying", exc_info=True)
        assert counted(reader) == before
        try:
            demo_targets.launch(13, 4)
        except AssertionError as exc:
            logger.error("load failed", exc_info=True)
            enrich.annotate(exc)                   # a second terminal point for the same exception
        assert counted(reader) == before + 1
    finally:
        logger.removeHandler(handler)


def test_asyncio_loop_handler_is_a_terminal_point_chained_to_the_one_set(recorded):
    _, _, reader, demo_targets = recorded
    seen = []
    before = counted(reader)

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda loop, context: seen.append(context["exception"]))
        loop.call_soon(demo_targets.launch, 14, 4)    # a callback that raises: asyncio hands it to the handler
        await asyncio.sleep(0.05)

    asyncio.run(main())
    [exc] = seen
    assert "[demo/not-divisible] 14 cannot be cut into 4 shards" in exc.__notes__[0]
    assert counted(reader) == before + 1


def test_unraisable_exception_is_a_terminal_point(recorded, monkeypatch):
    _, _, reader, demo_targets = recorded
    shown = []
    assert type(sys.unraisablehook).__name__ == "UnraisableHook"
    monkeypatch.setattr(sys.unraisablehook, "previous", shown.append)   # the hook enrich chained to

    class Closing:
        def __del__(self):
            demo_targets.launch(15, 4)

    before = counted(reader)
    Closing()          # __del__ raises: Python reports it through sys.unraisablehook
    [unraisable] = shown
    assert "[demo/not-divisible] 15 cannot be cut into 4 shards" in unraisable.exc_value.__notes__[0]
    assert counted(reader) == before + 1


def test_rate_limit_reports_what_it_suppressed():
    limit = RateLimit(burst=2, interval=10)
    results = [limit.allow("k", now=t) for t in (0, 1, 2, 3, 4)]
    assert results == [(True, 0), (True, 0), (False, 0), (False, 0), (False, 0)]
    assert limit.allow("k", now=11) == (True, 3)


def test_fingerprint_groups_the_same_error_across_processes(recorded):
    _, _, _, demo_targets = recorded
    raised = []
    for n in (16, 16, 20):
        try:
            demo_targets.launch(n, 6)
        except AssertionError as exc:
            raised.append(enrich.annotate(exc))
    assert fingerprint(raised[0]) == fingerprint(raised[1]) != fingerprint(raised[2])


SEAM_CHILD = textwrap.dedent("""
    import os, signal, sys
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=open(sys.argv[1], "w")),
                                                   schedule_delay_millis=600_000))
    trace.set_tracer_provider(provider)
    import enrich
    from enrich.catalog import load_files, reset
    from enrich.activation.integration import Integration, Target
    from pathlib import Path
    reset(load_files([Path(sys.argv[2])]))
    enrich.install(integrations=[Integration("demo", targets=(
        Target("seam", "demo_targets", "format_current_exception", seam=True),))])
    import demo_targets
    try:
        demo_targets.ensure_split(16, 6)
    except AssertionError:
        demo_targets.format_current_exception()
        os.kill(os.getpid(), signal.SIGKILL)     # what sglang's parent does to its schedulers
""")


def test_seam_flushes_telemetry_before_the_process_is_killed(tmp_path):
    out = tmp_path / "spans.json"
    child = subprocess.run([sys.executable, "-c", SEAM_CHILD, str(out), str(FIXTURES / "demo_catalog.toml")],
                           env={**os.environ, "PYTHONPATH": str(FIXTURES)}, capture_output=True, text=True,
                           timeout=60)
    assert child.returncode == -9, child.stderr
    text = out.read_text()
    assert '"error.type": "demo/not-divisible"' in text and '"enrich.mechanism": "seam:demo.seam"' in text


def test_resource_detector_tells_ranks_and_hosts_apart():
    code = ("from opentelemetry.sdk.resources import Resource; import json;"
            "print(json.dumps(dict(Resource.create().attributes)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "OTEL_EXPERIMENTAL_RESOURCE_DETECTORS": "enrich",
                              "RANK": "3", "WORLD_SIZE": "8"})
    attributes = __import__("json").loads(out.stdout)
    assert attributes["enrich.rank"] == 3 and attributes["enrich.world_size"] == 8, out.stderr
    assert attributes["host.name"] and "enrich.engine.torch.version" in attributes
