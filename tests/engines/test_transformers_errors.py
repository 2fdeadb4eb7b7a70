"""Model-class errors raised for real by transformers on CPU (no weights: from_config builds the
model class, or refuses to, from a config alone)."""

import pytest

transformers = pytest.importorskip("transformers")

import enrich  # noqa: E402
from enrich.catalog import get_catalog  # noqa: E402

ENTRY = "transformers/auto-class-config-unsupported"


def test_causal_lm_auto_class_on_an_encoder_decoder_config():
    with pytest.raises(ValueError) as info:
        transformers.AutoModelForCausalLM.from_config(transformers.T5Config())
    enrichment = enrich.annotate(info.value)
    assert enrichment is not None and enrichment.id == ENTRY, (str(info.value)[:200], enrichment)
    assert enrichment.summary.startswith("AutoModelForCausalLM has no model class for T5Config:")
    samples = [s.message for s in get_catalog().entries[ENTRY].samples]
    assert any(str(info.value).startswith(s) for s in samples), "the sample is this run's message, cut"

