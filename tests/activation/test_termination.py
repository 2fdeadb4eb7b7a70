"""The termination message and exit statuses of a process that dies of a catalog error."""

import os
import subprocess
import sys
import textwrap

import pytest

from enrich.model import Enrichment
from enrich.activation.termination import MAX_BYTES, message

pytest.importorskip("sglang")

UNCAUGHT = textwrap.dedent("""
    import atexit, threading, time, sys
    import enrich
    enrich.install()
    atexit.register(lambda: print("atexit handler of the application ran", flush=True))
    threading.Thread(target=lambda: (time.sleep(0.3), print("worker thread finished"))).start()
    print("buffered line on stdout")
    from sglang.srt.distributed.utils import ensure_divisibility
    ensure_divisibility(16, 6)
""")


def run(code: str, tmp_path, **env):
    environ = {**os.environ, "ENRICH_TERMINATION_LOG": str(tmp_path / "termination-log"), **env}
    if "ENRICH_EXIT_CODES" not in env:
        environ.pop("ENRICH_EXIT_CODES", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=300,
                          cwd=tmp_path)


def test_a_fatal_catalog_error_writes_the_termination_message(tmp_path):
    out = run(UNCAUGHT, tmp_path)
    assert out.returncode == 1
    assert "AssertionError: 16 is not divisible by 6" in out.stderr and "[sglang/not-divisible]" in out.stderr
    text = (tmp_path / "termination-log").read_text()
    assert text.startswith("sglang/not-divisible (fix-config): 16 cannot be cut into 6")
    assert "; fix: choose a TP size from 1, 2, 4, 8, 16" in text and "\n" not in text


def test_exit_codes_replace_pythons_1_after_atexit_and_threads(tmp_path):
    out = run(UNCAUGHT, tmp_path, ENRICH_EXIT_CODES="1")
    assert out.returncode == 78                                  # fix-config: EX_CONFIG
    assert out.stdout.splitlines() == ["buffered line on stdout", "worker thread finished",
                                       "atexit handler of the application ran"]
    assert "[sglang/not-divisible]" in out.stderr


def test_a_message_already_in_the_file_is_kept(tmp_path):
    (tmp_path / "termination-log").write_text("torch/cuda-oom (reduce-memory): the first error of the container")
    run(UNCAUGHT, tmp_path)
    assert (tmp_path / "termination-log").read_text() == "torch/cuda-oom (reduce-memory): the first error of the container"


SEAM = textwrap.dedent("""
    import os, signal, sys
    import enrich
    enrich.install()
    import torch
    from sglang.srt.distributed.utils import ensure_divisibility
    from sglang.utils import get_exception_traceback

    def {handler}():                 # sglang's top-level handlers call the seam, log, and die
        try:
            ensure_divisibility(16, 6)
        except Exception:
            print(get_exception_traceback(), file=sys.stderr)

    {handler}()
    with open("pointer.bin", "w") as f:   # a Git LFS pointer where the weights should be
        f.write("version https://git-lfs.github.com/spec/v1\\noid sha256:0\\nsize 1\\n")
    torch.load("pointer.bin")        # a second catalog error, uncaught: not the first any more
""")


def test_only_the_first_fatal_error_of_a_process_is_written(tmp_path):
    out = run(SEAM.format(handler="run_scheduler_process"), tmp_path)
    assert out.returncode == 1 and "[torch/load-not-a-checkpoint]" in out.stderr      # the second one is still explained
    assert (tmp_path / "termination-log").read_text().startswith("sglang/not-divisible (fix-config): ")


def test_a_seam_outside_a_death_handler_only_enriches(tmp_path):
    out = run(SEAM.format(handler="get_weights_by_name"), tmp_path)
    assert "[sglang/not-divisible]" in out.stderr                     # enriched at the seam
    assert (tmp_path / "termination-log").read_text().startswith("torch/load-not-a-checkpoint (fix-config)")   # the real death


def test_the_supervisor_takes_the_trees_own_report(tmp_path):
    code = textwrap.dedent("""
        import os, signal, sys
        from sglang.srt.distributed.utils import ensure_divisibility
        from sglang.utils import get_exception_traceback
        def run_scheduler_process():
            try:
                ensure_divisibility(16, 6)
            except Exception:
                print("Scheduler hit an exception: " + get_exception_traceback(), file=sys.stderr, flush=True)
                os.kill(os.getpid(), signal.SIGKILL)      # the engine kills its own tree
        run_scheduler_process()
    """)
    env = {**os.environ, "ENRICH_TERMINATION_LOG": str(tmp_path / "termination-log"), "ENRICH_EXIT_CODES": "1"}
    out = subprocess.run([sys.executable, "-m", "enrich", "run", "--", sys.executable, "-c", code],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 78                    # the root cause's resolution, not SIGKILL's
    assert out.stderr.count("[sglang/not-divisible]") == 1 and "[process/killed]" not in out.stderr
    assert (tmp_path / "termination-log").read_text().startswith("sglang/not-divisible (fix-config): ")


def test_an_unknown_error_or_a_bad_path_changes_nothing(tmp_path):
    out = run("import enrich; enrich.install(); raise KeyError('not in any catalog')", tmp_path)
    assert out.returncode == 1 and "KeyError: 'not in any catalog'" in out.stderr
    assert not (tmp_path / "termination-log").exists()
    out = run(UNCAUGHT, tmp_path, ENRICH_TERMINATION_LOG=str(tmp_path / "no" / "such" / "dir"))
    assert out.returncode == 1 and "AssertionError: 16 is not divisible by 6" in out.stderr
    assert "[sglang/not-divisible]" in out.stderr
    out = run(UNCAUGHT, tmp_path, ENRICH_TERMINATION_LOG="")      # empty: switched off
    assert out.returncode == 1 and not (tmp_path / "termination-log").exists()


def test_the_message_is_cut_on_a_character_boundary_and_redacted():
    enrichment = Enrichment(id="demo/long", title="t", engine="demo", component="config", resolution="fix-config",
                            summary="cannot reach https://user:pa55word@hub.example/x with hf_" + "a" * 30 + " " + "€" * 3000,
                            fixes=("check it",))
    text = message(enrichment)
    data = text.encode("utf-8")
    assert len(data) <= MAX_BYTES and len(data) > MAX_BYTES - 3
    assert data.decode("utf-8") == text and text.endswith("€")
    assert "pa55word" not in text and "hf_aaaa" not in text and "[redacted]" in text
