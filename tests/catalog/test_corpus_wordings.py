"""Wordings users' logs show, read from the labelled corpus of public pastes (dev split): the
catalog entry must claim the real message line, not only the wording of the current release."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from enrich.catalog import get_catalog
from enrich.facts import from_text
from enrich.match import best_match

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"

# (paste, regex of what comes before the message on its line, exception class as the paste names
#  it, entry, lines the message spans)
CASES = [
    ("flashinfer/002.log", "RuntimeError: ", "RuntimeError", "flashinfer/jit-build-failed"),
    ("flashinfer/008.log", r"what\(\):  ", "std::invalid_argument", "flashinfer/no-kernel-config"),
    ("flashinfer/009.log", "^Error: ", "RuntimeError", "flashinfer/no-kernel-config", 2),
    ("flashinfer/021.log", r"what\(\):  ", "flashinfer::Error", "flashinfer/no-kernel-config"),
    ("flashinfer/023.log", "RuntimeError: ", "RuntimeError", "flashinfer/no-kernel-config"),
    ("mlx/010.log", "ValueError: ", "ValueError", "mlx/load-weights-quantized-unexpected", 5),
    ("mlx/012.log", "ValueError: ", "ValueError", "mlx/load-weights-quantized-unexpected", 2),
    ("mlx/016.log", "std::runtime_error: ", "std::runtime_error", "mlx/metal-buffer-too-large"),
    ("mlx/026.log", "ValueError: ", "ValueError", "mlx-lm/chat-template-missing"),
    ("nccl/001.log", "# ", "RuntimeError", "torch/nccl-system-error"),
    ("nccl/005.log", "RuntimeError: ", "RuntimeError", "torch/nccl-system-error"),
    ("nccl/006.log", r"^(?=Duplicate GPU)", "DistBackendError", "torch/nccl-duplicate-gpu"),
    ("nccl/032.log", r"what\(\):  ", "std::runtime_error", "torch/nccl-cuda-error"),
    ("nccl/033.log", "Last error: ", "RuntimeError", "torch/nccl-cuda-error"),
    ("nccl/047.log", "problem：", "RuntimeError", "torch/nccl-internal-error"),
    ("sglang/013.log", "ImportError: ", "ImportError", "sglang/sgl-kernel-undefined-symbol"),
    ("sglang/020.log", "ValueError: ", "ValueError", "sglang/memory-unbalanced"),
    ("sglang/034.log", "CUDA error: ", "RuntimeError", "torch/cuda-illegal-address"),
    ("torch/003.log", r"^>\s+", "RuntimeError", "torch/state-dict-size-mismatch"),
    ("torch/007.log", "RuntimeError: ", "RuntimeError", "torch/state-dict-size-mismatch", 2),
    ("torch/016.log", r"^(?=Missing key)", "RuntimeError", "torch/state-dict-missing-keys", 3),
    ("torch/018.log", r"^(?=Unexpected key)", "RuntimeError", "torch/state-dict-unexpected-keys"),
    ("torch/019.log", "error \"KeyError: ", "KeyError", "torch/state-dict-unexpected-keys"),
    ("torch/021.log", "error: \"", "RuntimeError", "torch/cuda-no-kernel-image"),
    ("transformers/001.log", "OSError: ", "OSError", "transformers/no-model-type"),
    ("transformers/002.log", "`ValueError: ", "ValueError", "transformers/trust-remote-code", 2),
    ("transformers/003.log", "ValueError: ", "ValueError", "transformers/trust-remote-code"),
    ("transformers/004.log", "ValueError: ", "ValueError", "transformers/trust-remote-code"),
    ("transformers/015.log", "OSError: ", "OSError", "transformers/hub-unreachable"),
    ("transformers/015.log", "LocalEntryNotFoundError: ", "LocalEntryNotFoundError", "transformers/hub-unreachable"),
    ("transformers/017.log", "LocalEntryNotFoundError: ", "LocalEntryNotFoundError", "transformers/hub-unreachable"),
    ("transformers/025.log", "ValueError: ", "ValueError", "mlx-lm/chat-template-missing"),
    ("transformers/029.log", r"^GatedRepoError: ", "GatedRepoError", "transformers/repo-not-found", 3),
    ("transformers/030.log", r"^(?=Cannot access gated repo)", "GatedRepoError", "transformers/repo-not-found", 2),
    ("triton/002.log", r"^triton\.runtime\.errors\.OutOfResources: ", "OutOfResources", "triton/oor-shared-memory"),
    ("triton/009.log", "OutOfResources: ", "OutOfResources", "triton/oor-shared-memory"),
    ("triton/013.log", "0.8.5: ", "ValueError", "triton/fp8e4nv-unsupported"),
    ("triton/017.log", "error: `", "PTXASError", "triton/ptxas-unknown-arch"),
    ("triton/019.log", "NoTritonConfigsError: ", "NoTritonConfigsError", "triton/ptxas-unknown-arch", 3),
    ("triton/033.log", "RuntimeError: ", "RuntimeError", "triton/no-active-driver"),
    ("vllm/015.log", 'due to "', "ValueError", "vllm/no-kv-cache-memory"),
    ("vllm/022.log", "Error out: ", "ValueError", "vllm/bf16-compute-capability"),
]


def reported_message(paste: str, head: str, spans: int = 1) -> str:
    """The message as the paste shows it: after `head` on the first line where it occurs."""
    lines = (CORPUS / paste).read_text(encoding="utf-8", errors="replace").splitlines()
    for i, line in enumerate(lines):
        if found := re.search(head, line):
            return "\n".join([line[found.end():], *lines[i + 1:i + spans]]).strip()
    raise AssertionError(f"{paste}: no line with {head!r}")


@pytest.mark.parametrize("paste, head, exception, entry_id, spans", [(*c, 1)[:5] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_entry_claims_the_reported_wording(paste, head, exception, entry_id, spans):
    message = reported_message(paste, head, spans)
    match = best_match(from_text(exception, message), get_catalog())
    assert match is not None and match.entry.id == entry_id, (paste, message)


def test_cases_come_from_the_dev_split():
    """Wordings are tuned on the dev pastes only; the test split stays a fair measure."""
    for paste in {c[0] for c in CASES}:
        family, name = paste.split("/")
        labels = json.loads((CORPUS / family / "labels.json").read_text(encoding="utf-8"))
        assert next(item["split"] for item in labels if item["file"] == name) == "dev", paste
