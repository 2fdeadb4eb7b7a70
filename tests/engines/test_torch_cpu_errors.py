"""torch errors raised for real on CPU: a checkpoint that torch.save wrote on a GPU, sampling from
probabilities that are not a distribution, and a CUDA extension built where no toolkit was found."""

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import enrich  # noqa: E402
from enrich.catalog import get_catalog  # noqa: E402

# torch.save({"weight": torch.randn(4, 4, device="cuda")}, ...) on an H100, torch 2.11.0+cu130
SAVED_ON_CUDA = Path(__file__).parents[1] / "fixtures" / "checkpoints" / "saved-on-cuda.pt"


def enrichment_of(exc, entry_id):
    enrichment = enrich.annotate(exc)
    assert enrichment is not None and enrichment.id == entry_id, (str(exc), enrichment)
    assert exc.__notes__[0].startswith(f"[{entry_id}]")
    return enrichment


def test_a_checkpoint_saved_on_a_gpu_loaded_where_there_is_none():
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    with pytest.raises(RuntimeError) as info:
        torch.load(SAVED_ON_CUDA, weights_only=True)
    enrichment_of(info.value, "torch/load-cuda-on-cpu")
    assert str(info.value) in [s.message for s in get_catalog().entries["torch/load-cuda-on-cpu"].samples]
    assert 'map_location=\\"cpu\\"' not in info.value.__notes__[0]
    assert 'map_location="cpu"' in info.value.__notes__[0]
    # the fix it gives works
    state = torch.load(SAVED_ON_CUDA, map_location="cpu", weights_only=True)
    assert state["weight"].shape == (4, 4) and state["weight"].device.type == "cpu"


@pytest.mark.parametrize("probs", [[float("nan"), 1.0], [float("inf"), 1.0], [-1.0, 1.0], [0.0, 0.0]],
                         ids=["nan", "inf", "negative", "all-zero"])
def test_sampling_from_broken_probabilities(probs):
    with pytest.raises(RuntimeError) as info:
        torch.multinomial(torch.tensor(probs), 1)
    enrichment_of(info.value, "torch/multinomial-invalid-probs")
    assert str(info.value) in [s.message for s in get_catalog().entries["torch/multinomial-invalid-probs"].samples]


def test_building_a_cuda_extension_without_a_toolkit(monkeypatch, tmp_path):
    from torch.utils import cpp_extension
    # what _find_cuda_home leaves when CUDA_HOME, CUDA_PATH, nvcc and /usr/local/cuda are all absent;
    # this machine may have a toolkit, so the lookup's result is set rather than found
    monkeypatch.setattr(cpp_extension, "CUDA_HOME", None)
    (tmp_path / "scale.cu").write_text("__global__ void scale(float *x) { x[threadIdx.x] *= 2; }\n")
    with pytest.raises(OSError) as info:
        cpp_extension.CUDAExtension("scale", [str(tmp_path / "scale.cu")])
    enrichment_of(info.value, "torch/cpp-extension-no-cuda-home")
    assert str(info.value) in [s.message for s in get_catalog().entries["torch/cpp-extension-no-cuda-home"].samples]
