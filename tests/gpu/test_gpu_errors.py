"""GPU-only errors raised for real on a CUDA GPU (skipped where there is none).

Run on the lent H200 and recorded in the issue notes; CI has no GPU and skips them. With
ENRICH_GPU_RECORD=path, each test appends the real message and note to that JSON-lines file.
"""

import json
import os

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

import enrich  # noqa: E402

import scenarios  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def installed():
    enrich.install()
    yield
    enrich.uninstall()


def record(name, exc_type, message, note):
    path = os.environ.get("ENRICH_GPU_RECORD")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"scenario": name, "type": exc_type, "message": message, "note": note}) + "\n")


def raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    exc = info.value
    enrichment = enrich.annotate(exc)
    notes = getattr(exc, "__notes__", [])
    record(fn.__name__, type(exc).__qualname__, str(exc), notes[0] if notes else None)
    return exc, enrichment


def test_cuda_out_of_memory_states_asked_and_free():
    exc, enrichment = raised(scenarios.cuda_out_of_memory)
    assert isinstance(exc, torch.OutOfMemoryError)
    assert enrichment.id == "torch/cuda-oom"
    asked = str(exc).split("Tried to allocate ")[1].split(".")[0]
    assert asked in enrichment.summary and "free" in enrichment.summary


def test_triton_out_of_shared_memory():
    import triton
    exc, enrichment = raised(scenarios.triton_out_of_shared_memory)
    assert isinstance(exc, triton.runtime.errors.OutOfResources)
    assert enrichment.id == "triton/oor-shared-memory"
    assert enrichment.mechanism == "entrypoint:triton.kernel-load"
    assert str(exc.required) in enrichment.summary and "matmul_kernel" in enrichment.summary


def test_triton_compilation_error():
    import triton
    exc, enrichment = raised(scenarios.triton_compilation_error)
    assert isinstance(exc, triton.compiler.errors.CompilationError)
    assert enrichment.id == "triton/compilation-error" and enrichment.mechanism == "entrypoint:triton.compile"
    assert "scale_factor is not defined" in enrichment.summary


@pytest.mark.parametrize("name, entry", [("device_side_assert", "torch/cuda-device-assert"),
                                         ("illegal_memory_access", "torch/cuda-illegal-address")])
def test_context_poisoning_errors_in_their_own_process(name, entry):
    out = scenarios.run_child(name)      # uncaught: enrich's excepthook adds the note before it is printed
    record(name, "child", out.stderr[-3000:], None)
    assert out.returncode != 0
    assert f"more: enrich explain {entry}" in out.stderr, out.stderr[-2000:]


def test_nccl_error_of_a_spawned_rank_gets_its_note_in_the_parent():
    """The child's whole traceback arrives as the message of the parent's ProcessRaisedException."""
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(Exception) as info:
        mp.spawn(scenarios.duplicate_gpu_rank, args=(port,), nprocs=2)
    exc = info.value
    enrichment = enrich.annotate(exc)
    notes = getattr(exc, "__notes__", [])
    record("duplicate_gpu_rank", type(exc).__qualname__, str(exc), notes[0] if notes else None)
    assert type(exc).__name__ == "ProcessRaisedException"
    assert enrichment is not None and enrichment.id == "torch/nccl-duplicate-gpu", str(exc)[-1500:]


def test_sdpa_with_no_kernel_left_on_cuda():
    exc, enrichment = raised(scenarios.sdpa_flash_only_float32)
    assert isinstance(exc, RuntimeError)
    assert enrichment is not None and enrichment.id == "torch/sdpa-no-kernel", str(exc)
