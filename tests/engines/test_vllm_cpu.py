"""vLLM 0.34.0 on CPU, as far as it runs without a GPU: its own plugin loader activates enrich,
enrich's targets are wrapped in vLLM's real modules, and an error raised by vLLM's own code is
explained. (Run in a child process: importing vLLM reconfigures logging and torch.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

VLLM = Path(__file__).resolve().parents[2] / ".cache" / "vllm-0.34.0"

CHILD = """
from vllm.plugins import load_general_plugins
load_general_plugins()                              # vLLM's own loader runs enrich's plugin
from enrich.activation.installer import current
handle = current()
print("ACTIVE", handle is not None and handle.active and "vllm" in [i.name for i in handle.integrations])
import vllm.config.model, vllm.v1.attention.selector
print("WRAPPED", " ".join(sorted(n for n in handle.wrapped if n.startswith("vllm."))))
from vllm.distributed.utils import ensure_divisibility
try:
    ensure_divisibility(16, 6)                      # a vision tower's 16 heads at TP 6
except AssertionError as exc:
    import enrich
    enrichment = enrich.annotate(exc)
    print("ENRICHED", enrichment.id, enrichment.site)
    print("NOTE", exc.__notes__[0].splitlines()[0])
"""


@pytest.mark.skipif(not (VLLM / "vllm").is_dir(), reason="vLLM 0.34.0 not unpacked (scripts/setup does it)")
def test_vllm_plugin_loader_targets_and_a_real_vllm_error():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(VLLM)})
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.split(" ")[0].isupper())
    assert lines.get("ACTIVE") == "True", out.stderr[-2000:]
    assert lines["WRAPPED"] == "vllm.attention-backend vllm.config-parallel"
    assert lines["ENRICHED"] == "vllm/not-divisible vllm.distributed.utils:ensure_divisibility"
    assert lines["NOTE"].startswith("[vllm/not-divisible] 16 cannot be cut into 6 equal shards")
