"""Exceptions the catalog does not know: the raise site's own condition, with live values."""

import pytest

pytest.importorskip("sglang")
pytest.importorskip("torch")

import enrich  # noqa: E402
from enrich import catalog  # noqa: E402
from founding import gdn_packed_decode, raise_scenario  # noqa: E402


@pytest.fixture
def empty_catalog():
    catalog.reset(catalog.Catalog({}))
    yield
    catalog.reset()


def test_if_guard_of_a_raise_is_stated_with_its_values(empty_catalog):
    with pytest.raises(ValueError) as info:
        gdn_packed_decode(H=3, HV=4)
    enrichment = enrich.annotate(info.value)
    assert enrichment.generic and enrichment.id == "generic/ValueError"
    assert enrichment.summary == (
        "ValueError raised in sglang.kernels.ops.attention.fla.fused_recurrent:"
        "fused_recurrent_gated_delta_rule_packed_decode because `H <= 0 or HV % H != 0` was true with H=3, HV=4.")
    assert info.value.__notes__ == [f"[enrich: not in the catalog] {enrichment.summary}"]


def test_bare_assert_is_stated_with_attribute_values(empty_catalog):
    exc = raise_scenario("qwen3-next-bare-assert")
    assert enrich.annotate(exc).summary.endswith(
        "because `assert self.total_num_kv_heads % self.attn_tp_size == 0` failed with "
        "self.total_num_kv_heads=12, self.attn_tp_size=8.")


def test_generic_notes_can_be_switched_off(empty_catalog, monkeypatch):
    monkeypatch.setenv("ENRICH_GENERIC", "0")
    exc = raise_scenario("qwen3-next-bare-assert")
    assert enrich.annotate(exc) is None and not hasattr(exc, "__notes__")
