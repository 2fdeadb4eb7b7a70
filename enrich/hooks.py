"""Process-wide exception hooks, each chained to the hook it found."""

from __future__ import annotations

import sys
import threading

from enrich.guard import fail_open


class SysExceptHook:
    def __init__(self, previous):
        self.previous = previous

    def __call__(self, exc_type, exc, tb):
        if _active():
            with fail_open("sys.excepthook"):
                from enrich.pipeline import process
                from enrich.sinks import flush
                from enrich.termination import report_fatal
                enrichment = process(exc, "excepthook")
                flush()   # the interpreter exits next
                report_fatal(enrichment, set_status=True)
        self.previous(exc_type, exc, tb)


class ThreadingExceptHook:
    def __init__(self, previous):
        self.previous = previous

    def __call__(self, args):
        if _active():
            with fail_open("threading.excepthook"):
                from enrich.pipeline import process
                process(args.exc_value, "threading")
        self.previous(args)


def _active() -> bool:
    """A hook left in a chain after uninstall() (another hook was set on top) passes through."""
    from enrich.activation import current
    handle = current()
    return handle is not None and handle.active


def install() -> None:
    if sys.version_info < (3, 11):
        # The exceptiongroup backport renders __notes__ on 3.10, but only if it is
        # imported while sys.excepthook is still the default: import it first.
        with fail_open("exceptiongroup import"):
            import exceptiongroup  # noqa: F401
    if not isinstance(sys.excepthook, SysExceptHook):
        sys.excepthook = SysExceptHook(sys.excepthook)
    with fail_open("exit status handler"):
        from enrich.termination import arm
        arm()
    if not isinstance(threading.excepthook, ThreadingExceptHook):
        threading.excepthook = ThreadingExceptHook(threading.excepthook)


def uninstall() -> None:
    """Restore each hook only if it is still ours; a hook set on top of ours stays."""
    if isinstance(sys.excepthook, SysExceptHook):
        sys.excepthook = sys.excepthook.previous
    if isinstance(threading.excepthook, ThreadingExceptHook):
        threading.excepthook = threading.excepthook.previous
