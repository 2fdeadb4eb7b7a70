"""Model- and tokenizer-class errors raised for real by transformers on CPU (no weights: the Auto
classes pick a class, or refuse to, from a config alone)."""

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



class InternLM2Config(transformers.PretrainedConfig):
    """A repository's own config class, as transformers names one: it pairs no tokenizer with it."""

    model_type = None


InternLM2Config.__module__ = "transformers_modules.my-finetune.configuration_internlm2"


def test_auto_tokenizer_on_a_config_without_tokenizer_files(tmp_path):
    with pytest.raises(ValueError) as info:  # the directory has no tokenizer files
        transformers.AutoTokenizer.from_pretrained(str(tmp_path), config=InternLM2Config())
    enrichment = enrich.annotate(info.value)
    entry = "transformers/auto-tokenizer-config-unsupported"
    assert enrichment is not None and enrichment.id == entry, (str(info.value)[:200], enrichment)
    assert enrichment.summary.startswith("AutoTokenizer found no tokenizer class for InternLM2Config:")
    samples = [s.message for s in get_catalog().entries[entry].samples]
    assert any(str(info.value).startswith(s) for s in samples), "the sample is this run's message, cut"
