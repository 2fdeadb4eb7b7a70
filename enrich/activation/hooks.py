"""Process-wide exception hooks, each chained to the hook it found: sys.excepthook,
threading.excepthook, sys.unraisablehook, and asyncio's and uvloop's loop exception handler (the
method every loop calls, which then calls the handler the program set, or the default)."""

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


class UnraisableHook:
    def __init__(self, previous):
        self.previous = previous

    def __call__(self, unraisable):
        if _active():
            with fail_open("sys.unraisablehook"):
                process(unraisable.exc_value, "unraisable")
        self.previous(unraisable)


def _asyncio_handler(previous):
    def call_exception_handler(self, context):
        if _active():
            with fail_open("asyncio exception handler"):
                exc = context.get("exception") if isinstance(context, dict) else None
                if exc is not None:
                    process(exc, "asyncio")
        return previous(self, context)
    call_exception_handler.enrich_previous = previous
    return call_exception_handler


# the loop classes whose call_exception_handler every failed callback and task goes through:
# asyncio's own, and uvloop's (a Python subclass of its compiled loop, so the method can be set)
LOOP_CLASSES = {"asyncio.base_events": "BaseEventLoop", "uvloop": "Loop"}


def _hook_asyncio(module) -> None:
    loop_class = getattr(module, LOOP_CLASSES[module.__name__])
    if not hasattr(loop_class.call_exception_handler, "enrich_previous"):
        loop_class.call_exception_handler = _asyncio_handler(loop_class.call_exception_handler)


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
    if not isinstance(sys.unraisablehook, UnraisableHook):
        sys.unraisablehook = UnraisableHook(sys.unraisablehook)
    for name in LOOP_CLASSES:
        if name in sys.modules:
            _on_asyncio_import(sys.modules[name])
        elif name not in _asyncio_watched:
            import wrapt
            _asyncio_watched.add(name)   # post-import hooks live as long as the process: one is enough
            wrapt.register_post_import_hook(_on_asyncio_import, name)


_asyncio_watched: set[str] = set()


def _on_asyncio_import(module) -> None:
    with fail_open("asyncio hook"):   # passes through while enrich is off
        _hook_asyncio(module)


def uninstall() -> None:
    """Restore each hook only if it is still ours; a hook set on top of ours stays."""
    if isinstance(sys.excepthook, SysExceptHook):
        sys.excepthook = sys.excepthook.previous
    if isinstance(threading.excepthook, ThreadingExceptHook):
        threading.excepthook = threading.excepthook.previous
    if isinstance(sys.unraisablehook, UnraisableHook):
        sys.unraisablehook = sys.unraisablehook.previous
    for name, class_name in LOOP_CLASSES.items():
        loop_class = getattr(sys.modules.get(name), class_name, None)
        if loop_class is not None and hasattr(loop_class.call_exception_handler, "enrich_previous"):
            loop_class.call_exception_handler = loop_class.call_exception_handler.enrich_previous
