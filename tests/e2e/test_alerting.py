"""End to end: a process with enrich raises a real sglang error; Prometheus (Debian's package)
scrapes its OpenTelemetry metrics, the shipped rule fires, Alertmanager receives the alert.
A real torch error the application catches and handles (logged at WARNING) gets its note but
must not count or fire.
A process in a crash loop that reports one transient error per life makes the recurring alert
fire, though its counter never goes above 1.
Everything listens on 127.0.0.1; .ci/run installs the two servers."""

import json
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "integrations" / "prometheus" / "enrich-alerts.yml"
PROMETHEUS, ALERTMANAGER = shutil.which("prometheus"), shutil.which("prometheus-alertmanager")

pytestmark = pytest.mark.skipif(not (PROMETHEUS and ALERTMANAGER),
                                reason="needs Debian's prometheus and prometheus-alertmanager")
pytest.importorskip("opentelemetry.exporter.prometheus")
pytest.importorskip("sglang")

SERVING = textwrap.dedent("""
    import sys, time
    from opentelemetry import metrics
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from prometheus_client import start_http_server
    start_http_server(port=int(sys.argv[1]), addr="127.0.0.1")
    metrics.set_meter_provider(MeterProvider(metric_readers=[PrometheusMetricReader()]))
    import logging
    import enrich
    enrich.install()
    from enrich.integrations.logging import instrument
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    instrument()
    import torch
    try:                                 # handled: retried without the missing keys
        torch.nn.Linear(2, 2).load_state_dict({})
    except RuntimeError as exc:
        logging.warning("checkpoint incomplete, loading what is there", exc_info=True)
        assert "[torch/state-dict-missing-keys]" in exc.__notes__[0]
    from sglang.srt.distributed.utils import ensure_divisibility
    try:
        ensure_divisibility(16, 6)       # a vision tower's 16 heads at TP 6
    except AssertionError as exc:
        enrich.annotate(exc)             # what the sglang seam does in a scheduler process
    import torch
    try:
        torch.cuda.init()                # this machine has no GPU driver: the node is at fault
    except RuntimeError as exc:
        enrich.annotate(exc)
    print("raised", flush=True)
    time.sleep(300)
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


@pytest.fixture
def processes():
    started = []
    yield started
    for proc in started:
        proc.terminate()
    for proc in started:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_rules_are_valid():
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed")
    out = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "SUCCESS: 5 rules found" in out.stdout, out.stdout + out.stderr


def start_servers(tmp_path, processes) -> tuple[int, int, int]:
    """Alertmanager and Prometheus (scraping one exporter port, evaluating the shipped rules)."""
    exporter, prom, am = free_port(), free_port(), free_port()
    (tmp_path / "alertmanager.yml").write_text(textwrap.dedent("""
        route: {receiver: sink, group_wait: 1s, group_interval: 1s}
        receivers: [{name: sink}]
    """))
    (tmp_path / "prometheus.yml").write_text(textwrap.dedent(f"""
        global: {{scrape_interval: 1s, evaluation_interval: 1s}}
        rule_files: ["{RULES}"]
        alerting: {{alertmanagers: [{{static_configs: [{{targets: ["127.0.0.1:{am}"]}}]}}]}}
        scrape_configs: [{{job_name: serving, static_configs: [{{targets: ["127.0.0.1:{exporter}"]}}]}}]
    """))
    processes.append(subprocess.Popen(
        [ALERTMANAGER, f"--config.file={tmp_path / 'alertmanager.yml'}", f"--storage.path={tmp_path / 'am'}",
         f"--web.listen-address=127.0.0.1:{am}", "--cluster.listen-address="],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    processes.append(subprocess.Popen(
        [PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{prom}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{prom}/-/ready", timeout=5) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    return exporter, prom, am


def wait_for_alerts(am: int, names: set[str]) -> dict:
    deadline, alerts = time.monotonic() + 180, {}     # rules evaluated every second; a loaded CI machine is slower
    while time.monotonic() < deadline:
        try:
            alerts = {a["labels"]["alertname"]: a for a in get_json(f"http://127.0.0.1:{am}/api/v2/alerts")}
        except OSError:
            pass
        if names <= set(alerts):
            break
        time.sleep(1)
    assert names <= set(alerts), f"alerts that arrived: {sorted(alerts)}"
    return alerts


def test_alerts_are_routed_by_resolution_with_id_title_and_first_fix(tmp_path, processes):
    exporter, prom, am = start_servers(tmp_path, processes)
    serving = subprocess.Popen([sys.executable, "-c", SERVING, str(exporter)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    processes.append(serving)
    assert serving.stdout.readline().strip() == "raised"

    alerts = wait_for_alerts(am, {"EnrichKnownError", "EnrichNodeFault"})
    ticket, page = alerts["EnrichKnownError"], alerts["EnrichNodeFault"]
    assert ticket["labels"]["error_type"] == "sglang/not-divisible"
    assert ticket["labels"]["enrich_resolution"] == "fix-config" and ticket["labels"]["severity"] == "ticket"
    assert ticket["labels"]["enrich_engine"] == "sglang"
    assert ticket["annotations"]["summary"] == ("sglang/not-divisible (fix-config): A dimension does not split evenly "
                                                "over the parallel group")
    assert ticket["annotations"]["fix"].startswith("choose a TP size from {sizes}")   # the template: few series
    assert page["labels"]["error_type"] == "torch/cuda-no-driver"
    assert page["labels"]["enrich_resolution"] == "drain-node" and page["labels"]["severity"] == "page"
    assert "EnrichRecurringError" not in alerts      # nothing transient happened
    series = get_json(f"http://127.0.0.1:{prom}/api/v1/query?query=enrich_exceptions_total")["data"]["result"]
    assert sorted(s["metric"]["error_type"] for s in series) == ["sglang/not-divisible", "torch/cuda-no-driver"]
    assert [float(s["value"][1]) for s in series] == [1.0, 1.0]   # the handled torch error: no point


CRASHING = textwrap.dedent("""
    import sys, time
    from datetime import timedelta
    from opentelemetry import metrics
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from prometheus_client import start_http_server
    start_http_server(port=int(sys.argv[1]), addr="127.0.0.1")
    metrics.set_meter_provider(MeterProvider(metric_readers=[PrometheusMetricReader()]))
    import enrich
    enrich.install()
    import torch.distributed as dist
    try:                                 # the rendezvous server is not up (yet): a restart may cure it
        dist.TCPStore("127.0.0.1", int(sys.argv[2]), is_master=False, timeout=timedelta(seconds=1))
    except Exception as exc:
        enrich.annotate(exc)
    print("raised", flush=True)
    time.sleep(6)                        # scraped (every second, slower on a loaded machine), then the next life
""")


def test_a_crash_loop_that_reports_once_per_life_fires_the_recurring_alert(tmp_path, processes):
    exporter, prom, am = start_servers(tmp_path, processes)
    closed = free_port()
    for _ in range(3):
        life = subprocess.Popen([sys.executable, "-c", CRASHING, str(exporter), str(closed)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(life)
        assert life.stdout.readline().strip() == "raised"
        life.wait(30)
    alerts = wait_for_alerts(am, {"EnrichRecurringError"})
    recurring = alerts["EnrichRecurringError"]
    assert recurring["labels"]["error_type"] == "torch/tcpstore-connect-timeout"
    assert recurring["labels"]["enrich_resolution"] == "retry"
    counter = get_json(f"http://127.0.0.1:{prom}/api/v1/query?query=max_over_time(enrich_exceptions_total[5m])")
    assert [float(s["value"][1]) for s in counter["data"]["result"]] == [1.0]   # invisible to increase()
