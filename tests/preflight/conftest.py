import json
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


@pytest.fixture
def models() -> Path:
    return MODELS


@pytest.fixture
def make_model(tmp_path):
    """A model directory with the given config.json (a real public config, edited)."""
    def make(base: str | None = None, **changes) -> Path:
        config = json.loads((MODELS / base / "config.json").read_text()) if base else {}
        config.update(changes)
        folder = tmp_path / (base or "model")
        folder.mkdir(exist_ok=True)
        (folder / "config.json").write_text(json.dumps(config))
        return folder
    return make
