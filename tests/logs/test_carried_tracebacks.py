"""Errors that reach a process as another process's traceback in a message, and tracebacks
logged as text: the reader explains the inner error."""

import socket
import traceback

import pytest
from logger_fixture import stream_logger  # noqa: F401 - a fixture


def _listen_on_taken_port(rank: int, port: int) -> None:
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)


def test_spawned_rank_failure_reaches_the_parent_with_the_inner_errors_note(monkeypatch):
    """torch.multiprocessing.spawn: a child fails in init_process_group (its TCPStore port is
    taken); the parent gets ProcessRaisedException, whose message is the child's traceback."""
    mp = pytest.importorskip("torch.multiprocessing")
    from enrich.pipeline import process

    monkeypatch.setenv("ENRICH_DISABLED", "1")          # the child has no enrich: only its text comes back
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(mp.ProcessRaisedException) as raised:
            mp.spawn(_listen_on_taken_port, args=(port,), nprocs=1, join=True)
    exc = raised.value
    assert "Traceback (most recent call last)" in str(exc) and "[torch/" not in str(exc)
    monkeypatch.delenv("ENRICH_DISABLED")
    enrichment = process(exc, "test")
    assert enrichment is not None and enrichment.id == "torch/tcpstore-port-in-use"
    assert type(exc) is mp.ProcessRaisedException                       # the live exception keeps its identity
    assert any(note.startswith("[torch/tcpstore-port-in-use]") for note in exc.__notes__)
    assert str(port) in enrichment.summary + " ".join(enrichment.fixes)


def test_a_traceback_passed_as_a_percent_argument_gets_the_note(stream_logger):
    """vLLM and sglang log ``logger.error("... %s", traceback_text)``: the traceback is in the args."""
    torch = pytest.importorskip("torch")
    from enrich.integrations.logging import EnrichFilter

    logger, handler, stream = stream_logger
    handler.addFilter(EnrichFilter())
    try:
        torch.nn.Linear(8, 4).load_state_dict(torch.nn.Linear(16, 4).state_dict())
    except RuntimeError:
        text = traceback.format_exc()
    assert "[torch/" not in text                       # no note yet: the filter reads the text
    logger.error("WorkerProc hit an exception: %s", text)
    out = stream.getvalue()
    assert "WorkerProc hit an exception: Traceback" in out
    assert "[torch/state-dict-size-mismatch] Linear.weight: the checkpoint has shape [4, 16]" in out


def test_the_message_a_parent_received_on_an_h200_is_explained():
    """Recorded on an H200 (tests/gpu, NCCL 2.28.9): two spawned ranks on one GPU; the parent's
    ProcessRaisedException carries the rank's traceback, DistBackendError with its Last error."""
    import json
    from pathlib import Path

    from enrich.logs.carried import explain_text

    records = Path(__file__).parents[1] / "fixtures" / "gpu" / "h200-run3-before.jsonl"
    [record] = [r for r in map(json.loads, records.read_text().splitlines()) if r["scenario"] == "duplicate_gpu_rank"]
    assert record["type"] == "ProcessRaisedException" and not record["note"]
    enrichment = explain_text(record["message"], "test")
    assert enrichment.id == "torch/nccl-duplicate-gpu" and "Ranks 1 and 0" in enrichment.summary
