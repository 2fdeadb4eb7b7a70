"""The resolution of a catalog entry reaches every output: note, span, counter, log fields, CLI."""

import json
import subprocess
import sys
import textwrap

import pytest

from enrich.catalog.resolution import NAMES, RESOLUTIONS, exit_code

pytest.importorskip("sglang")

# A real sglang error through install(), with the real OpenTelemetry SDK, logging and structlog.
SCRIPT = textwrap.dedent("""
    import io, json, logging
    import structlog
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

    import enrich
    from enrich.integrations.logging import EnrichFilter
    from enrich.integrations.structlog import add_enrichment
    enrich.install()
    from sglang.srt.distributed.utils import ensure_divisibility

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    handler.addFilter(EnrichFilter())
    log = logging.getLogger("serving")
    log.addHandler(handler)
    events = []
    structlog.configure(processors=[add_enrichment, lambda _, __, event: events.append(event) or ""])

    def fail():
        try:
            ensure_divisibility(16, 6)
        except AssertionError as exc:
            return exc

    exc = fail()
    log.error("load failed", exc_info=(type(exc), exc, exc.__traceback__))
    structlog.get_logger().error("load failed", exc_info=fail())
    span = spans.get_finished_spans()[0]
    points = [p for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics
              for m in sm.metrics if m.name == "enrich.exceptions" for p in m.data.data_points]
    print(json.dumps({
        "note": exc.__notes__[0],
        "span": span.attributes["enrich.resolution"],
        "event": span.events[0].attributes["enrich.resolution"],
        "counter": [dict(p.attributes) for p in points],
        "log": [records[0].enrich["resolution"], records[0].enrich_resolution],
        "structlog": events[0]["enrich"]["resolution"],
    }))
""")


def test_resolution_in_note_span_counter_and_log_fields():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    first, second = got["note"].splitlines()[:2]
    assert first.startswith("[sglang/not-divisible] ")
    assert second == "  resolution: fix-config (a restart as-is fails the same way)"
    assert got["span"] == got["event"] == "fix-config"
    assert {p["enrich.resolution"] for p in got["counter"]} == {"fix-config"}   # a series per entrypoint
    assert got["counter"][0]["error.type"] == "sglang/not-divisible"
    assert got["log"] == ["fix-config", "fix-config"]
    assert got["structlog"] == "fix-config"


def run_cli(*args, status=0):
    out = subprocess.run([sys.executable, "-m", "enrich", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == status, out.stderr
    return out.stdout


def test_explain_and_catalog_show_it_as_text_and_json():
    page = run_cli("explain", "torch/cuda-oom")
    assert "  resolution: reduce-memory: out of memory: a relaunch with a smaller footprint" in page
    assert json.loads(run_cli("explain", "torch/cuda-no-driver", "--json"))["resolution"] == "drain-node"
    assert json.loads(run_cli("catalog", "show", "sglang/attn-tp-kv-heads", "--json"))["resolution"] == "fix-config"
    listed = json.loads(run_cli("catalog", "list", "--json"))
    assert len(listed) >= 124 and {e["resolution"] for e in listed} == set(NAMES)


def test_explain_of_a_log_reports_the_resolution(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("Traceback (most recent call last):\n"
                   '  File "/x/sglang/srt/distributed/utils.py", line 31, in ensure_divisibility\n'
                   "AssertionError: 16 is not divisible by 6\n")
    [finding] = json.loads(run_cli("explain", str(log), "--json", status=1))["findings"]   # 1: errors found
    assert (finding["id"], finding["resolution"]) == ("sglang/not-divisible", "fix-config")
    assert "     resolution: fix-config (a restart as-is fails the same way)" in run_cli("explain", str(log), status=1)


def test_exit_codes_are_distinct_and_outside_the_shells_own_range():
    codes = [exit_code(name) for name in NAMES]
    assert len(set(codes)) == len(codes)
    assert all(64 <= code <= 78 for code in codes)         # sysexits.h: below 126/128+N
    assert exit_code("fix-config") == 78 and exit_code("retry") == 75 and exit_code("drain-node") == 69
    assert exit_code("nonsense") is None and set(RESOLUTIONS) == set(NAMES)
