"""vLLM 0.34.0's own start-up checks on CPU: a config.json whose architecture no class serves, and a
--max-model-len above what vLLM derives from config.json (with the YaRN case the catalog's advice
depends on). The errors come from vLLM's real ModelConfig and _get_and_verify_max_len and are
explained by the catalog. (Run in a child process: importing vLLM reconfigures logging and torch.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

VLLM = Path(__file__).resolve().parents[2] / ".cache" / "vllm-0.34.0"

CHILD = r"""
import json, os, tempfile
import vllm.config                                  # before the convertor: vLLM's own import order
from vllm.config import ModelConfig
from vllm.config.model import _get_and_verify_max_len
from transformers import LlamaConfig
from vllm.transformers_utils.model_arch_config_convertor import ModelArchConfigConvertorBase
import enrich

def report(case, run):
    try:
        result = run()
    except Exception as exc:
        enrichment = enrich.annotate(exc)
        print("CASE", json.dumps([case, type(exc).__name__, enrichment.id if enrichment else None, str(exc)]))
    else:
        print("CASE", json.dumps([case, "passed", None, str(result)]))

def unknown_architecture():
    path = tempfile.mkdtemp()
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump({"architectures": ["NoSuchModelForCausalLM"], "model_type": "llama", "hidden_size": 64,
                   "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128,
                   "vocab_size": 256, "max_position_embeddings": 4096}, f)
    return ModelConfig(model=path, skip_tokenizer_init=True)

def max_len(requested, **config):
    hf_config = LlamaConfig(**config)
    arch = ModelArchConfigConvertorBase(hf_config, hf_config).convert()
    return lambda: _get_and_verify_max_len(hf_config, arch, None, requested, False, None)

yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
linear = {"rope_type": "linear", "factor": 4.0}
report("architecture", unknown_architecture)
report("too-long", max_len(8192, max_position_embeddings=4096))
report("yarn-factor-only", max_len(16384, max_position_embeddings=4096, rope_scaling=yarn))
report("yarn-with-extended-positions", max_len(16384, max_position_embeddings=16384, rope_scaling=yarn))
report("linear-factor", max_len(16384, max_position_embeddings=4096, rope_scaling=linear))
"""


@pytest.fixture(scope="module")
def cases():
    if not (VLLM / "vllm").is_dir():
        pytest.skip("vLLM 0.34.0 not unpacked (scripts/setup does it)")
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(VLLM), "HF_HUB_OFFLINE": "1"})
    found = {}
    for line in out.stdout.splitlines():
        if line.startswith("CASE "):
            case, kind, entry, message = json.loads(line[5:])
            found[case] = (kind, entry, message)
    assert found, out.stderr[-3000:]
    return found


def test_an_architecture_no_class_serves(cases):
    kind, entry, message = cases["architecture"]
    assert (kind, entry) == ("ValidationError", "vllm/architecture-unsupported")
    assert "Model architectures ['NoSuchModelForCausalLM'] are not supported for now." in message


def test_max_model_len_above_the_derived_length(cases):
    kind, entry, message = cases["too-long"]
    assert (kind, entry) == ("ValueError", "vllm/max-model-len-over-derived")
    assert message.startswith("User-specified max_model_len (8192) is greater than the derived max_model_len "
                              "(max_position_embeddings=4096.0 or model_max_length=None in model's config.json).")


def test_a_yarn_factor_alone_does_not_raise_the_derived_length(cases):
    # the catalog's fix: from 0.31 a YaRN override must also set max_position_embeddings
    assert cases["yarn-factor-only"][:2] == ("ValueError", "vllm/max-model-len-over-derived")
    assert cases["yarn-with-extended-positions"][:2] == ("passed", None)
    assert cases["linear-factor"][:2] == ("passed", None)
