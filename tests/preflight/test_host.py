"""Host checks with the real host: a real listening socket, the real /proc/meminfo."""

from __future__ import annotations

import json
import socket

import pytest

from enrich.preflight.check import pick_gpu, preflight
from enrich.preflight.facts import _mem_available


def run(command: str, **kwargs):
    kwargs.setdefault("check_host", True)
    return preflight(command.split(), gpu=pick_gpu("H100-80GB", None, None, measure=False), env={}, **kwargs)


@pytest.fixture
def busy_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_port_in_use_is_predicted(models, busy_port):
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct --host 127.0.0.1 --port {busy_port}")
    f = next(f for f in report.outcome.findings if f.id == "process/port-in-use")
    assert f.severity == "error" and report.exit_code == 1
    assert f.summary == f"The server cannot listen on 127.0.0.1:{busy_port}: another process already listens there."
    assert f"--port (now {busy_port})" in f.fixes[0]


def test_free_port_and_startup_mode_are_quiet(models, busy_port):
    with socket.socket() as probe:       # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    report = run(f"python -m sglang.launch_server --model-path {models}/Qwen2-7B-Instruct --port {free}")
    assert "process/port-in-use" not in [f.id for f in report.outcome.findings]
    # inside the engine's own process the port may be its own: no bind test there
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct --host 127.0.0.1 --port {busy_port}", check_port=False)
    assert "process/port-in-use" not in [f.id for f in report.outcome.findings]


def test_host_ram_for_loading(tmp_path, models):
    available = _mem_available()
    assert available and available > 0
    (tmp_path / "config.json").write_text((models / "Llama-3.1-70B-Instruct" / "config.json").read_text())
    # a checkpoint index whose total is twice this machine's available memory
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 2 * available}, "weight_map": {"lm_head.weight": "model-00001-of-00002.safetensors"}}))
    report = run(f"vllm serve {tmp_path} --tensor-parallel-size 8")
    f = next(f for f in report.outcome.findings if f.id == "process/oom-killed")
    assert f.severity == "warning"
    assert f.summary.startswith("Loading the checkpoint needs about ") and "of host RAM and" in f.summary
    # pickled checkpoints are read whole by every rank: the need is multiplied by the ranks
    (tmp_path / "model.safetensors.index.json").unlink()
    (tmp_path / "pytorch_model.bin").write_bytes(b"")
    report = run(f"vllm serve {tmp_path} --tensor-parallel-size 8")
    needed = report.plan["weights_total_gib"] * 8 * 2**30   # 70B in bf16 (estimated from the shape), 8 copies
    if needed <= available:
        pytest.skip("this host has more RAM available than 8 copies of a 70B checkpoint")
    f = next(f for f in report.outcome.findings if f.id == "process/oom-killed")
    assert "(8 ranks, pickled checkpoint)" in f.summary


def test_no_host_checks_when_off(models, busy_port):
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct --host 127.0.0.1 --port {busy_port}", check_host=False)
    assert report.outcome.findings == []
