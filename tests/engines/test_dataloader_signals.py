"""A DataLoader worker killed by a signal: torch's own loader on CPU, its worker really
signalled. torch reports it as a RuntimeError naming the signal, whose entry is the cause
(a bus error: the workers outgrew /dev/shm)."""

import io
import os
import signal
import time
import traceback

import pytest

torch = pytest.importorskip("torch", reason="needs torch (the tests extra)")

import enrich  # noqa: E402
from enrich.logs import findings  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402


class Dies(Dataset):
    """Each item kills the worker that reads it with the given signal."""

    def __init__(self, signum: int):
        self.signum = signum

    def __len__(self):
        return 4

    def __getitem__(self, i):
        os.kill(os.getpid(), self.signum)


def loader_error(signum: int) -> RuntimeError:
    """What torch raises once the worker died: its SIGCHLD handler checks the workers and raises in
    the main thread (its own check, called here too, should the signal come late)."""
    from torch.utils.data._utils.signal_handling import _error_if_any_worker_fails

    batches = iter(DataLoader(Dies(signum), num_workers=1, multiprocessing_context="fork"))
    try:
        with pytest.raises(RuntimeError) as info:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                time.sleep(0.05)
                _error_if_any_worker_fails()
    finally:
        batches._shutdown_workers()
    return info.value


@pytest.mark.parametrize("signum, entry", [(signal.SIGBUS, "process/bus-error"),
                                           (signal.SIGSEGV, "process/segfault")])
def test_a_worker_killed_by_a_signal_is_the_signals_entry(signum, entry):
    exc = loader_error(signum)
    assert "is killed by signal" in str(exc)
    assert enrich.annotate(exc).id == entry
    assert exc.__notes__[0].startswith(f"[{entry}]")
    printed = "".join(traceback.format_exception(exc))
    assert [f.id for f in findings(io.StringIO(printed))] == [entry]
