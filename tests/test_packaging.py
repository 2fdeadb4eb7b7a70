"""The wheel carries the catalog, the integrations and the activation .pth, and registers entry
points; installed into a fresh virtual environment, the command and ENRICH_AUTO=1 work."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_patterns_and_integrations(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
                            str(ROOT), "-w", str(tmp_path)], check=True, capture_output=True, text=True)
    # a folder of data not listed as a package makes setuptools warn on every user's install
    assert "is absent from the `packages` configuration" not in build.stdout + build.stderr
    [wheel] = tmp_path.glob("enrich_llm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for pattern_file in (ROOT / "patterns").rglob("*.toml"):
        assert f"enrich/patterns/{pattern_file.relative_to(ROOT / 'patterns')}" in names
    assert "enrich/integrations/sglang.py" in names
    for package in (ROOT / "enrich").rglob("__init__.py"):     # every package of the source tree ships
        assert str(package.relative_to(ROOT)) in names, package
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for line in ("sglang = enrich.integrations.sglang:integration", "builtin = enrich.patterns",
                 "enrich = enrich.integrations.sglang:plugin", "[sglang.srt.plugins]", "[enrich.catalogs]"):
        assert line in text.splitlines(), line
    pth = [n for n in names if n.endswith(".pth")]
    assert pth == ["enrich_auto.pth"]            # top level of site-packages, where site.py reads it
    code = [line for line in zipfile.ZipFile(wheel).read(pth[0]).decode().splitlines() if not line.startswith("#")]
    assert len(code) == 1 and code[0].startswith("import ") and len(code[0]) < 200


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """`pip install <checkout>` into a new virtual environment, as a user does."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution" in done.stderr + done.stdout:
        pytest.skip("the package index cannot be reached to install the dependencies")
    assert done.returncode == 0, done.stderr
    return venv


def in_venv(venv: Path, *command: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("ENRICH_", "PYTHON"))}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=venv.parent,
                          env={**environment, "PATH": f"{venv / 'bin'}:{environment.get('PATH', '')}", **env})


def test_fresh_install_gives_a_working_command(fresh_venv):
    out = in_venv(fresh_venv, "enrich", "--version")
    assert (out.returncode, out.stdout, out.stderr) == (0, "enrich 0.1.0\n", "")
    out = in_venv(fresh_venv, "enrich", "explain", "sglang/attn-tp-kv-heads")
    assert out.returncode == 0 and out.stdout.startswith("sglang/attn-tp-kv-heads: ")
    log = fresh_venv.parent / "crash.log"                      # the log reader ships too
    log.write_text("RuntimeError: CUDA error: device-side assert triggered\n")
    out = in_venv(fresh_venv, "enrich", "explain", str(log))
    assert out.returncode == 1 and "[torch/cuda-device-assert]" in out.stdout, out.stderr   # 1: errors found


CHECK = "import sys; print('enrich' in sys.modules, sys.excepthook.__module__)"


def test_enrich_auto_activates_every_interpreter_through_the_pth(fresh_venv):
    python = str(fresh_venv / "bin" / "python")
    assert in_venv(fresh_venv, python, "-c", CHECK).stdout == "False sys\n"          # off unless set
    on = in_venv(fresh_venv, python, "-c", CHECK, ENRICH_AUTO="1")
    assert on.stdout.split()[0] == "True" and on.stdout.split()[1] != "sys" and on.stderr == ""


def test_the_pth_fails_open(fresh_venv, tmp_path):
    broken = tmp_path / "shadow" / "enrich"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a broken enrich on the path')\n")
    out = in_venv(fresh_venv, str(fresh_venv / "bin" / "python"), "-c", "print('started')",
                  ENRICH_AUTO="1", PYTHONPATH=str(broken.parent))
    assert (out.returncode, out.stdout, out.stderr) == (0, "started\n", "")
