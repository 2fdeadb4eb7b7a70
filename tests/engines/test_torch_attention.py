"""Attention-path errors raised for real by torch on CPU: scaled_dot_product_attention's head and dtype
checks, no backend left, and matmul operands of two dtypes. Each is recognised as its entry, and its
message is the entry's sample."""

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import enrich
from enrich.catalog import get_catalog


def raised(call) -> RuntimeError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as info:
            call()
    return info.value


def check(exc: RuntimeError, entry_id: str) -> str:
    enrichment = enrich.annotate(exc)
    assert enrichment is not None and enrichment.id == entry_id, (str(exc), enrichment)
    assert str(exc) in [s.message for s in get_catalog().entries[entry_id].samples], str(exc)
    return enrichment.summary


def test_gqa_heads_that_do_not_group():
    q, kv = torch.randn(1, 6, 4, 8), torch.randn(1, 4, 4, 8)       # 6 query heads, 4 KV heads
    exc = raised(lambda: F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True))
    check(exc, "torch/sdpa-gqa-heads")


def test_no_backend_left():
    q = torch.randn(1, 2, 4, 8)
    def call():
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):      # a CUDA kernel only; math turned off
            F.scaled_dot_product_attention(q, q, q)
    check(raised(call), "torch/sdpa-no-kernel")


def test_sdpa_dtypes_differ():
    q, kv = torch.randn(1, 2, 4, 8, dtype=torch.bfloat16), torch.randn(1, 2, 4, 8, dtype=torch.float16)
    summary = check(raised(lambda: F.scaled_dot_product_attention(q, kv, kv)), "torch/sdpa-dtype-mismatch")
    assert summary == "Query, key and value reach attention in different dtypes (query BFloat16, key Half, value Half)."


@pytest.mark.parametrize("call", [
    lambda a, b: torch.mm(a, b),
    lambda a, b: torch.nn.Linear(3, 2).half()(a),
    lambda a, b: torch.addmm(torch.zeros(2, 2, dtype=torch.bfloat16), a, b),
    lambda a, b: torch.matmul(a.expand(2, 2, 3), b.expand(2, 3, 2)),
], ids=["mm", "linear", "addmm", "bmm"])
def test_matmul_dtypes_differ(call):
    a, b = torch.randn(2, 3, dtype=torch.bfloat16), torch.randn(3, 2, dtype=torch.float16)
    summary = check(raised(lambda: call(a, b)), "torch/matmul-dtype-mismatch")
    assert "dtype" in summary
