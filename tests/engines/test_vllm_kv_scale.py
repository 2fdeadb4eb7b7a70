"""vLLM's KV-cache scale checks, raised by vLLM's own code on CPU: 0.34.0's scalar loader refuses a
per-head scale; 0.10.1.1's after-load check refuses a one-element scale that kept a dimension.
(Child processes: importing vLLM reconfigures logging and torch.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

CACHE = Path(__file__).resolve().parents[2] / ".cache"
VLLM_034, VLLM_010 = CACHE / "vllm-0.34.0", CACHE / "vllm-0.10.1.1"

REPORT = """
import enrich
enrichment = enrich.annotate(exc)
print("ENRICHED", enrichment.id if enrichment else None)
print("MESSAGE", str(exc))
"""

PER_HEAD = """
import torch
from vllm.model_executor.layers.quantization.kv_cache import KVCacheScaleParameter
k_scale = KVCacheScaleParameter()
try:
    KVCacheScaleParameter.weight_loader(k_scale, torch.full((8,), 0.02))   # one scale per KV head
except ValueError as e:
    exc = e
""" + REPORT

# vLLM 0.10.1.1 imports packages this environment lacks (blake3...), so kv_cache.py runs alone:
# its own source, under its own module name, with the three names it imports from vLLM given
# plain stand-ins (a logger, the platform query, the base class).
ONE_ELEMENT = """
import logging, sys, types, torch
path = sys.argv[1] + "/vllm/model_executor/layers/quantization/kv_cache.py"
name = "vllm.model_executor.layers.quantization.kv_cache"
parts = name.split(".")
for i in range(1, len(parts)):
    sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
sys.modules["vllm.logger"] = types.SimpleNamespace(init_logger=logging.getLogger)
sys.modules["vllm.platforms"] = types.SimpleNamespace(current_platform=types.SimpleNamespace(is_fp8_fnuz=lambda: False))
base = sys.modules["vllm.model_executor.layers.quantization.base_config"] = types.ModuleType("base_config")
base.QuantizationConfig = object
base.QuantizeMethodBase = type("QuantizeMethodBase", (), {})
module = types.ModuleType(name)
module.__file__ = path
sys.modules[name] = module
exec(compile(open(path).read(), path, "exec"), module.__dict__)
layer = torch.nn.Module()
module.BaseKVCacheMethod.create_weights(None, layer)
layer.kv_cache_dtype, layer.calculate_kv_scales = "fp8", False
layer.k_scale = torch.nn.Parameter(torch.tensor([0.02]), requires_grad=False)   # shape [1], not 0-d
layer.v_scale = torch.nn.Parameter(torch.tensor([0.03]), requires_grad=False)
try:
    module.BaseKVCacheMethod.process_weights_after_loading(None, layer)
except ValueError as e:
    exc = e
""" + REPORT


def _run(code: str, root: Path, importable: bool = True) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)} if importable else os.environ
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=300, env=env)
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.split(" ")[0].isupper())
    assert "ENRICHED" in lines, out.stderr[-2000:]
    return lines


@pytest.mark.skipif(not (VLLM_034 / "vllm").is_dir(), reason="vLLM 0.34.0 not unpacked (scripts/setup does it)")
def test_per_head_kv_scale_is_refused():
    lines = _run(PER_HEAD, VLLM_034)
    assert lines["MESSAGE"] == "KV-cache scale expects a scalar weight, got shape (8,)"
    assert lines["ENRICHED"] == "vllm/kv-cache-scale-not-scalar"


@pytest.mark.skipif(not (VLLM_010 / "vllm").is_dir(), reason="vLLM 0.10.1.1's source not unpacked in .cache")
def test_old_check_refuses_a_one_element_scale():
    lines = _run(ONE_ELEMENT, VLLM_010, importable=False)
    assert lines["MESSAGE"] == "Only support per-tensor scaling factor for fp8 KV cache"
    assert lines["ENRICHED"] == "vllm/fp8-kv-scale-per-tensor"     # no vLLM installed: the <0.34 gate is open
