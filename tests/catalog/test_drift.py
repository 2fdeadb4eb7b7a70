"""Every integration target still exists in the engine version it is checked against."""

import os
from pathlib import Path

import pytest

from enrich.catalog.tools.drift import defines, missing_targets
from enrich.activation.integration import Integration, Target, discover

ROOT = Path(__file__).resolve().parents[2]
VLLM_SRC = Path(os.environ.get("ENRICH_VLLM_SRC", ROOT / ".cache" / "vllm-0.34.0"))
INTEGRATIONS = {i.name: i for i in discover()}


@pytest.mark.parametrize("name", ["sglang", "torch", "triton", "mlx-lm"])
def test_targets_exist_in_the_installed_engine(name):
    pytest.importorskip(name.replace("-", "_"))
    assert missing_targets(INTEGRATIONS[name]) == []


@pytest.mark.skipif(not (VLLM_SRC / "vllm").is_dir(), reason="vLLM's source not fetched (scripts/setup does)")
def test_vllm_targets_exist_in_the_vllm_wheel():
    assert missing_targets(INTEGRATIONS["vllm"], VLLM_SRC) == []


def test_a_renamed_target_is_reported(tmp_path):
    (tmp_path / "eng").mkdir()
    (tmp_path / "eng" / "core.py").write_text("class Runner:\n    def load(self):\n        pass\n")
    assert defines(tmp_path / "eng" / "core.py", "Runner.load")
    integration = Integration("eng", targets=(Target("a", "eng.core", "Runner.load"),
                                              Target("b", "eng.core", "Runner.load_model")))
    assert missing_targets(integration, tmp_path) == ["eng.core:Runner.load_model"]
