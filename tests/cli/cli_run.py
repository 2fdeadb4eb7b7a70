"""Running the real command in a subprocess, and what its errors look like."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
KNOWN_LOG = LOGS / "mlx-02.log"          # one error the catalog knows: mlx/metal-buffer-too-large


def run_cli(*args, env=None, **kw):
    """The real command, as a user runs it: a subprocess of ``python -m enrich``."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env or {})
    kw.setdefault("stdin", subprocess.DEVNULL if "input" not in kw else None)
    return subprocess.run([sys.executable, "-m", "enrich", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=environment, **kw)


def assert_one_line_error(out, code=2, says=""):
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == ""
    assert out.stderr.startswith("enrich: ") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert says in out.stderr, out.stderr


@pytest.fixture
def clean_log(tmp_path):
    path = tmp_path / "clean.log"
    path.write_text("INFO server started\nINFO 200 GET /health\n")
    return path
