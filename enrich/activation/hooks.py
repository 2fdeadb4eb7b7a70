"""Process-wide exception hooks, each chained to the hook it found."""

from __future__ import annotations

import sys
import threading

from enrich import sinks
from enrich.guard import fail_open
from enrich.pipeline import process
from enrich.state import active as _active
from enrich.activation.termination import report_fatal


class SysExceptHook:
    def __init__(self, previous):
        self.previous = previous

    def __call__(self, exc_type, exc, tb):
        if _active():
            with fail_open("sys.excepthook"):
                enrichment = process(exc, "excepthook")
                sinks.flush()   # the interpreter exits next
                report_fatal(enrichment, set_status=True)
        self.previous(exc_type, exc, tb)


class ThreadingExceptHook:
    def __init__(self, previous):
        self.previous = previous

    def __call__(self, args):
        if _active():
            with fail_open("threading.excepthook"):
                process(args.exc_value, "threading")
        self.previous(args)


def install() -> None:
    if sys.version_info < (3, 11):
        # The exceptiongroup backport renders __notes__ on 3.10, but only if it is
        # imported while sys.excepthook is still the default: import it first.
        with fail_open("exceptiongroup import"):
            import exceptiongroup  # noqa: F401
    if not isinstance(sys.excepthook, SysExceptHook):
        sys.excepthook = SysExceptHook(sys.excepthook)
    with fail_open("exit status handler"):
        from enrich.activation.termination import arm
        arm()
    if not isinstance(threading.excepthook, ThreadingExceptHook):
        threading.excepthook = ThreadingExceptHook(threading.excepthook)


def uninstall() -> None:
    """Restore each hook only if it is still ours; a hook set on top of ours stays."""
    if isinstance(sys.excepthook, SysExceptHook):
        sys.excepthook = sys.excepthook.previous
    if isinstance(threading.excepthook, ThreadingExceptHook):
        threading.excepthook = threading.excepthook.previous
