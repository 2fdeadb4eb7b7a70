"""torchrun under `enrich run` on the CPU: the worker's error gets its note, and so does the
agent's ChildFailedError at the end of the log, the last thing an operator reads."""

import socket
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch.distributed.run")

WORKER = textwrap.dedent("""
    import torch
    {decorator_import}

    {decorator}
    def main():
        torch.nn.Linear(8, 4).load_state_dict(torch.nn.Linear(16, 4).state_dict())

    main()
""")


def _torchrun(tmp_path, record: bool) -> str:
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(
        decorator_import="from torch.distributed.elastic.multiprocessing.errors import record" if record else "",
        decorator="@record" if record else ""))
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    out = subprocess.run([sys.executable, "-m", "enrich", "run", "--", sys.executable, "-m", "torch.distributed.run",
                          "--nproc-per-node", "1", "--master-port", str(port), str(script)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode != 0
    return out.stderr


def _last_note(stderr: str) -> str:
    """The note under the agent's table (the table ends in a line of '=')."""
    lines = stderr.splitlines()
    end = max(i for i, line in enumerate(lines) if line.startswith("=====") and not line.strip("="))
    return next(line for line in lines[end + 1:] if line.startswith("["))


def test_the_agents_summary_points_at_the_workers_output(tmp_path):
    stderr = _torchrun(tmp_path, record=False)
    assert "[torch/state-dict-size-mismatch]" in stderr          # the worker's own note, above
    note = _last_note(stderr)
    assert note.startswith("[torch/elastic-child-failed] Rank 0 (local rank 0) on ")
    assert "exited with code 1 (pid " in note and "not in the catalog" not in stderr
    assert "fix 2: decorate the script's entry point with @record" in stderr


def test_with_record_the_summary_carries_the_workers_error_and_its_note(tmp_path):
    stderr = _torchrun(tmp_path, record=True)
    assert "error_file: <N/A>" not in stderr
    assert _last_note(stderr).startswith("[torch/state-dict-size-mismatch] Linear")
    assert "[torch/elastic-child-failed]" not in stderr
