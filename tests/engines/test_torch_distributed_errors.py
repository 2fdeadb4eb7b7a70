"""torch.distributed misuse raised for real on CPU: a collective's query before any process group."""

import pytest

dist = pytest.importorskip("torch.distributed")

import enrich  # noqa: E402
from enrich.catalog import get_catalog  # noqa: E402

ENTRY = "torch/default-group-not-initialized"


def test_a_rank_asked_before_init_process_group():
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as info:
        dist.get_rank()
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == ENTRY, (str(info.value), enrichment)
    assert str(info.value) in [s.message for s in get_catalog().entries[ENTRY].samples]
    assert info.value.__notes__[0].startswith(f"[{ENTRY}]")
