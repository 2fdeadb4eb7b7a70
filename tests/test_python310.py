"""Python 3.10 has no add_note: enrich sets __notes__ itself and makes sure they are shown."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _python310() -> str | None:
    candidates = [shutil.which("python3.10"), "/usr/bin/python3.10",
                  *map(str, sorted(Path.home().glob(".pyenv/versions/3.10*/bin/python3.10")))]
    for candidate in (c for c in candidates if c and Path(c).exists()):
        if subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    return None


PY310 = _python310()

SCRIPT = """
import logging, sys, traceback
import enrich
enrich.install(integrations=[])
def ensure_divisibility(numerator, denominator):
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)
try:
    ensure_divisibility(16, 6)
except AssertionError as exc:
    assert enrich.annotate(exc).id == "sglang/not-divisible"
    logging.basicConfig(format="%(message)s")
    logging.getLogger("x").exception("logged")
    print("formatted:", "".join(traceback.format_exception(*sys.exc_info())).count("[sglang/not-divisible]"))
ensure_divisibility(12, 8)
"""


@pytest.fixture(scope="module")
def python310(tmp_path_factory):
    if PY310 is None:
        pytest.skip("no python3.10 on this machine")
    venv = tmp_path_factory.mktemp("py310") / "venv"
    subprocess.run([PY310, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    str(ROOT)], check=True, capture_output=True, timeout=600)
    return venv / "bin/python"


FOREIGN_HOOK_FIRST = """
import sys
def theirs(exc_type, exc, tb):
    print("THEIRS", getattr(exc, "__notes__", None), flush=True)
sys.excepthook = theirs                       # another library got there first
import enrich
enrich.install(integrations=[])
def ensure_divisibility(numerator, denominator):
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)
ensure_divisibility(16, 6)
"""


def test_a_hook_installed_first_still_runs_after_enrich_on_python_310(python310, tmp_path):
    out = subprocess.run([str(python310), "-c", FOREIGN_HOOK_FIRST], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert out.stdout.startswith("THEIRS ") and "[sglang/not-divisible] 16 cannot be cut into 6" in out.stdout, \
        out.stdout + out.stderr   # enrich ran first (the note is there), then the hook it found


def test_notes_are_shown_on_python_310(python310, tmp_path):
    out = subprocess.run([str(python310), "-c", SCRIPT], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert "formatted: 1" in out.stdout, out.stderr
    # logging's traceback and the uncaught one (through enrich's excepthook) both show the note
    assert out.stderr.count("[sglang/not-divisible] 16 cannot be cut into 6") == 1, out.stderr
    assert "[sglang/not-divisible] 12 cannot be cut into 8" in out.stderr, out.stderr
