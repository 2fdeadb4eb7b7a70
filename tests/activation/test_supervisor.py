"""`enrich run` supervises its child: real signals, real aborts, a real OOM kill where allowed."""

import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from enrich.activation import cgroup

RUN = [sys.executable, "-m", "enrich", "run", "--", sys.executable, "-c"]


def supervise(code: str, tmp_path: Path, **env) -> subprocess.CompletedProcess:
    environ = {**os.environ, "ENRICH_TERMINATION_LOG": str(tmp_path / "termination-log"), **env}
    environ.pop("ENRICH_EXIT_CODES", None) if "ENRICH_EXIT_CODES" not in env else None
    return subprocess.run(RUN + [textwrap.dedent(code)], capture_output=True, text=True, env=environ,
                          timeout=180, cwd=tmp_path)


def termination(tmp_path: Path) -> str:
    path = tmp_path / "termination-log"
    return path.read_text() if path.exists() else ""


def test_a_real_sigkill_is_reported_with_the_shells_status(tmp_path):
    out = supervise("""
        import os, signal, sys
        print("loading", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """, tmp_path)
    assert out.returncode == 137
    assert out.stdout == "loading\n"
    assert "enrich: the command was killed by SIGKILL (exit status 137)" in out.stderr
    evidence = ("the cgroup's OOM-kill counter did not move" if cgroup.read_oom_kills(cgroup.oom_counters()) is not None
                else "no cgroup OOM-kill counter could be read")
    assert f"[process/killed] The process was killed with SIGKILL from outside; {evidence}." in out.stderr
    assert "  resolution: retry (transient: a restart may work)" in out.stderr
    assert termination(tmp_path).startswith(f"process/killed (retry): The process was killed with SIGKILL from outside; "
                                            f"{evidence}.; fix: look above in the log")


def test_exit_statuses_per_resolution_are_opt_in(tmp_path):
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert supervise(kill, tmp_path, ENRICH_EXIT_CODES="1").returncode == 75        # retry: EX_TEMPFAIL
    assert supervise("import sys; sys.exit(3)", tmp_path, ENRICH_EXIT_CODES="1").returncode == 3   # nothing known
    assert supervise("pass", tmp_path, ENRICH_EXIT_CODES="1").returncode == 0


def test_a_cpp_terminate_then_abort_is_explained_from_its_what(tmp_path):
    out = supervise("""
        import ctypes, sys
        sys.stderr.write("terminate called after throwing an instance of 'c10::Error'\\n"
                         "  what():  CUDA error: an illegal memory access was encountered\\n"
                         "CUDA kernel errors might be asynchronously reported at some other API call, so the "
                         "stacktrace below might be incorrect.\\n"
                         "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:44 "
                         "(most recent call first):\\n")
        sys.stderr.flush()
        ctypes.CDLL(None).abort()
    """, tmp_path)
    assert out.returncode == 134
    assert "enrich: the command was killed by SIGABRT (exit status 134)" in out.stderr
    assert "[torch/cuda-illegal-address] A GPU kernel touched memory it does not own" in out.stderr
    assert termination(tmp_path).startswith("torch/cuda-illegal-address (report-bug): ")


def test_an_abort_the_catalog_does_not_know_names_its_what(tmp_path):
    out = supervise("""
        import ctypes, sys
        sys.stderr.write("terminate called after throwing an instance of 'std::runtime_error'\\n"
                         "  what():  tile scheduler ran out of work items\\n")
        sys.stderr.flush()
        ctypes.CDLL(None).abort()
    """, tmp_path, ENRICH_EXIT_CODES="1")
    assert out.returncode == 70                                                   # report-bug: EX_SOFTWARE
    assert ("[process/native-abort] Native code aborted the process after: std::runtime_error: "
            "tile scheduler ran out of work items") in out.stderr


def test_a_real_segfault(tmp_path):
    out = supervise("""
        import ctypes, sys
        print("loading the extension", file=sys.stderr, flush=True)
        ctypes.string_at(0)
    """, tmp_path)
    assert out.returncode == 139
    assert ("[process/segfault] The process died of a segmentation fault in native code; the last line on "
            "stderr was: loading the extension") in out.stderr
    assert termination(tmp_path).startswith("process/segfault (report-bug): ")


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="ud2 is an x86 instruction")
def test_a_real_illegal_instruction(tmp_path):
    out = supervise("""
        import ctypes, mmap
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(b"\\x0f\\x0b")                       # ud2: the instruction defined to be invalid
        ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
    """, tmp_path)
    assert out.returncode == 128 + signal.SIGILL
    assert "[process/illegal-instruction] The CPU refused an instruction (SIGILL)" in out.stderr
    assert "  resolution: upgrade" in out.stderr


def test_a_real_bus_error_from_a_truncated_mapping(tmp_path):
    out = supervise("""
        import mmap, tempfile
        f = tempfile.TemporaryFile()
        f.write(b"x" * 2 * mmap.PAGESIZE)
        f.flush()
        mapped = mmap.mmap(f.fileno(), 2 * mmap.PAGESIZE)
        f.truncate(0)                                   # the file shrinks under the mapping
        mapped[mmap.PAGESIZE]
    """, tmp_path)
    assert out.returncode == 128 + signal.SIGBUS
    assert "[process/bus-error] A memory access failed with a bus error (SIGBUS)" in out.stderr
    assert termination(tmp_path).startswith("process/bus-error (fix-config): ")


def test_a_plain_failure_passes_through_untouched(tmp_path):
    out = supervise("import sys; print('bye'); sys.stderr.write('partial line, no newline'); sys.exit(3)", tmp_path)
    assert (out.returncode, out.stdout, out.stderr) == (3, "bye\n", "partial line, no newline")
    assert termination(tmp_path) == ""


def test_a_child_that_cannot_start_gets_the_shells_127(tmp_path):
    out = subprocess.run([sys.executable, "-m", "enrich", "run", "--", str(tmp_path / "missing")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 127 and out.stderr.strip() == f"enrich: run: command not found: {tmp_path / 'missing'}"


INTERLEAVED = """
    import sys
    for i in range(200):
        stream = sys.stdout if i % 3 else sys.stderr
        stream.write(f"{'out' if i % 3 else 'err'} {i}\\n")
        stream.flush()
    sys.stdout.buffer.write(bytes(range(256)))        # binary, no newline at the end
"""


def test_interleaved_output_keeps_its_order_when_both_streams_are_one_file(tmp_path):
    with open(tmp_path / "both.log", "wb") as log:
        rc = subprocess.run(RUN + [textwrap.dedent(INTERLEAVED)], stdout=log, stderr=subprocess.STDOUT,
                            timeout=120).returncode
    data = (tmp_path / "both.log").read_bytes()
    expected = "".join(f"{'out' if i % 3 else 'err'} {i}\n" for i in range(200)).encode() + bytes(range(256))
    assert rc == 0 and data == expected


def test_separate_streams_pass_through_byte_for_byte(tmp_path):
    with open(tmp_path / "out", "wb") as out, open(tmp_path / "err", "wb") as err:
        rc = subprocess.run(RUN + [textwrap.dedent(INTERLEAVED)], stdout=out, stderr=err, timeout=120).returncode
    assert rc == 0
    assert (tmp_path / "out").read_bytes() == "".join(
        f"out {i}\n" for i in range(200) if i % 3).encode() + bytes(range(256))
    assert (tmp_path / "err").read_bytes() == "".join(f"err {i}\n" for i in range(200) if not i % 3).encode()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signals_are_forwarded_to_the_child(tmp_path, sig):
    code = textwrap.dedent("""
        import signal, sys, time
        def stop(signum, frame):
            print(f"child got {signal.Signals(signum).name}", flush=True)
            sys.exit(0)
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, stop)
        print("ready", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen(RUN + [code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)   # no terminal: only the forwarded signal reaches it
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert out == f"child got {sig.name}\n" and proc.returncode == 0, err


def test_the_supervisor_emits_telemetry_through_the_same_sink(tmp_path):
    script = textwrap.dedent(f"""
        import json, sys
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
        from enrich.activation.supervisor import run
        status = run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
        [span] = spans.get_finished_spans()
        [point] = [p for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics
                   for m in sm.metrics if m.name == "enrich.exceptions" for p in m.data.data_points]
        event = span.events[0].attributes
        print(json.dumps({{"status": status, "type": event["exception.type"], "message": event["exception.message"],
                           "resolution": event["enrich.resolution"], "labels": dict(point.attributes)}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180,
                         env={**os.environ, "ENRICH_TERMINATION_LOG": ""})
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["status"] == 139
    assert got["type"] == "enrich.activation.supervisor.ProcessDied" and got["message"] == "killed by SIGSEGV (signal 11)"
    assert got["resolution"] == "report-bug"
    assert got["labels"]["error.type"] == "process/segfault"
    assert got["labels"]["enrich.resolution"] == "report-bug" and got["labels"]["enrich.entrypoint"] == "supervisor"


def memory_cgroup(tmp_path):
    """A child memory cgroup of this process's own, with a 256 MiB limit; None where not allowed."""
    counters = cgroup.oom_counters()
    if counters is None:
        return None
    base = Path(counters.events).parent
    group = base / f"enrich-test-{os.getpid()}"
    try:
        group.mkdir()
        v2 = (group / "memory.max").exists()
        (group / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(str(256 << 20))
        if v2:
            (group / "memory.swap.max").write_text("0")
    except OSError:
        if group.exists():
            group.rmdir()
        return None
    return group


def test_a_real_oom_kill_in_a_memory_limited_cgroup(tmp_path):
    group = memory_cgroup(tmp_path)
    if group is None:
        pytest.skip("this machine does not let a test create a memory cgroup")
    try:
        hog = "x = []\nwhile True:\n    x.append(bytearray(16 << 20))\n"
        # The supervisor joins the cgroup first, as in a container: its child inherits it.
        wrapper = f"echo $$ > {group}/cgroup.procs && exec \"$@\""
        out = subprocess.run(["sh", "-c", wrapper, "sh", *RUN, hog], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "ENRICH_TERMINATION_LOG": str(tmp_path / "termination-log")})
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    assert out.returncode == 137, out.stderr
    assert "[process/oom-killed] The OOM killer ended the process: its cgroup (limit 256.0 MiB, peak " in out.stderr
    assert "  resolution: reduce-memory" in out.stderr
    assert termination(tmp_path).startswith("process/oom-killed (reduce-memory): The OOM killer ended the process")
