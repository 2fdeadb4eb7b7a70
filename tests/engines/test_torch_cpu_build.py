"""A CPU-only PyTorch build asked for a GPU, for real: a fresh virtual environment with torch's
+cpu wheel and enrich, a process that moves a tensor to cuda, its note and its log read back."""

import glob
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from enrich.logs import findings

ROOT = Path(__file__).resolve().parents[2]
FAILING = "import enrich; enrich.install(); import torch; torch.zeros(2).to('cuda')"


def cpu_wheel() -> str | None:
    """torch's +cpu wheel where pip is told to find wheels on this disk (a download of torch from
    an index would be a CUDA build of several GB)."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    folders = [folder for line in listed.splitlines() if "find-links" in line
               for folder in line.split("=", 1)[1].strip("'\" ").split()]
    wheels = sorted(w for folder in folders for w in glob.glob(os.path.join(folder, "torch-*+cpu-*.whl")))
    return wheels[-1] if wheels else None


@pytest.fixture(scope="module")
def cpu_python(tmp_path_factory):
    wheel = cpu_wheel()
    if wheel is None:
        pytest.skip("no CPU build of torch among pip's local wheels")
    venv = tmp_path_factory.mktemp("cpu-torch") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", wheel, str(ROOT)], check=True, timeout=600)
    return python


def test_a_cpu_build_asked_for_cuda_gets_its_note_and_its_log_names_it(cpu_python):
    # run outside the checkout: its enrich/ folder would shadow the installed package
    done = subprocess.run([cpu_python, "-c", FAILING], capture_output=True, text=True, timeout=120,
                          cwd=Path(cpu_python).parent, env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 1
    assert "AssertionError: Torch not compiled with CUDA enabled" in done.stderr, done.stderr
    assert "[torch/not-compiled-with-cuda] This PyTorch build has no CUDA support" in done.stderr
    # the same stderr read back after the fact, without the note, as a log without enrich
    bare = done.stderr.split("[torch/not-compiled-with-cuda]")[0]
    [found] = findings(io.StringIO(bare))
    assert found.id == "torch/not-compiled-with-cuda" and found.site == "torch.cuda:_lazy_init"
