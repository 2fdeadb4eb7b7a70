"""sglang's own plugin loader activates enrich in a spawned process, and the note appears inside
the "Scheduler hit an exception: Traceback ..." log line that sglang writes before it dies."""

import logging
import multiprocessing

import pytest

pytest.importorskip("sglang")
pytest.importorskip("setproctitle", reason="sglang.srt.managers.scheduler needs it")


def scheduler_like_child(log_path: str) -> None:
    """What run_scheduler_process does around model load, minus the GPU: load_plugins(), then the
    same except block (scheduler.py: get_exception_traceback, logger.error)."""
    logging.basicConfig(filename=log_path, level=logging.INFO, format="[%(asctime)s TP0] %(message)s")
    from sglang.srt.managers import scheduler    # its `from sglang.utils import get_exception_traceback`
    from sglang.srt.plugins import load_plugins
    load_plugins()                               # enrich arrives through its sglang.srt.plugins entry point
    from founding import raise_scenario
    logging.basicConfig(filename=log_path, level=logging.INFO, format="[%(asctime)s TP0] %(message)s",
                        force=True)              # sglang configures logging on import; log where we read
    try:
        raise raise_scenario("llama-bare-assert")  # a bare assert: no wrapped entrypoint on its path
    except Exception:
        traceback = scheduler.get_exception_traceback()
        scheduler.logger.error(f"Scheduler hit an exception: {traceback}")


def test_note_is_inside_the_scheduler_log_line(tmp_path):
    log = tmp_path / "scheduler.log"
    child = multiprocessing.get_context("spawn").Process(target=scheduler_like_child, args=(str(log),))
    child.start()
    child.join(180)
    assert child.exitcode == 0
    text = log.read_text()
    line = text[text.index("Scheduler hit an exception: Traceback"):]
    assert "AssertionError\n[sglang/attn-tp-kv-heads] 12 KV heads cannot be split over an attention TP group of 8" in line
    assert "Loaded plugin enrich" in text or "Executed general plugin: enrich" in text
