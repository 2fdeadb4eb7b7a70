"""A scheduler process of sglang killed by a signal while the engine starts: sglang's launcher
reports its exit code (-N for signal N), and the signal's own entry is the cause. Real spawned
children, really signalled; sglang 0.5.23's own _wait_for_scheduler_ready on CPU."""

import io
import multiprocessing as mp
import os
import signal
import traceback

import pytest

pytest.importorskip("sglang", reason="needs sglang (pip install --no-deps sglang==0.5.23)")

import enrich  # noqa: E402
from enrich.logs import findings  # noqa: E402


def _die(writer, signum):
    writer.close()
    os.kill(os.getpid(), signum)


def launcher_error(signum: int) -> RuntimeError:
    from sglang.srt.entrypoints.engine import _wait_for_scheduler_ready

    reader, writer = mp.Pipe(duplex=False)
    child = mp.get_context("spawn").Process(target=_die, args=(writer, signum))
    child.start()
    writer.close()
    with pytest.raises(RuntimeError) as info:
        _wait_for_scheduler_ready([reader], [child])
    return info.value


def test_a_bus_error_is_the_cause_of_the_schedulers_death():
    exc = launcher_error(signal.SIGBUS)
    assert str(exc).startswith("Rank 0 scheduler died during initialization (exit code: -7)")
    assert enrich.annotate(exc).id == "process/bus-error"      # the launcher's error reaches the excepthook as is
    [note] = exc.__notes__
    assert note.startswith("[process/bus-error]")
    printed = "".join(traceback.format_exception(exc))
    assert [f.id for f in findings(io.StringIO(printed))] == ["process/bus-error"]
    assert [f.id for f in findings(io.StringIO("the scheduler died during initialization (exit code: -7) again\n"))] == \
        ["process/bus-error"]


def test_sigkill_stays_the_launchers_own_reading():
    """sglang kills its own schedulers when one fails: -9 is the launcher's to explain."""
    exc = launcher_error(signal.SIGKILL)
    assert "(exit code: -9)" in str(exc)
    assert enrich.annotate(exc).id == "sglang/scheduler-died-init"
    [note] = exc.__notes__
    assert note.startswith("[sglang/scheduler-died-init]")
    # printed, the pipe's bare EOFError comes first in the chain: the error raised while handling it says more
    printed = "".join(traceback.format_exception(exc))
    assert "EOFError" in printed
    assert [f.id for f in findings(io.StringIO(printed))] == ["sglang/scheduler-died-init"]
