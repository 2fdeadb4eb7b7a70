"""The last word of a dying process: Kubernetes' termination message, and opt-in exit statuses.

At a terminal catch point (sys.excepthook, an engine's death seam, ``enrich run`` when its child
dies) the first fatal catalog error of the process is written as one line,

    sglang/attn-tp-kv-heads (fix-config): 12 KV heads cannot be split ...; fix: launch with --tp 4 ...

to ENRICH_TERMINATION_LOG, else to /dev/termination-log when it exists and is writable (what a
Pod's terminationMessagePath points at). At most 4096 bytes, cut on a character boundary, redacted
like every other output. A file that already holds a message is left alone: the first fatal
error of the container wins over the echoes that follow it (Kubernetes gives each container
start a new, empty file). Every step fails open.

ENRICH_EXIT_CODES=1 makes a process that dies of a catalog error exit with its resolution's
status (enrich.resolution). Python decides its exit status after sys.excepthook returns, so the
hook records the status and an atexit handler applies it with os._exit() as the last thing the
interpreter runs: non-daemon threads have been joined and the atexit handlers registered after
install() (exporters, the application's own) have run; logging and the standard streams are
flushed first. Calling os._exit() from the hook itself would skip all of that.

Under ``enrich run`` (ENRICH_FATAL_REPORT set) each process of the tree also appends its first
fatal error as a JSON line to that file, so the supervisor knows the root cause of a tree that
its engine then kills with a signal.
"""

from __future__ import annotations

import atexit
import json
import os
import sys

from enrich import settings
from enrich.model import Enrichment
from enrich.guard import fail_open
from enrich.redact import redact_text
from enrich.catalog.resolution import exit_code

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, the size check still holds
    fcntl = None  # type: ignore[assignment]

MAX_BYTES = 4096
KUBERNETES_PATH = "/dev/termination-log"
REPORT_ENV = "ENRICH_FATAL_REPORT"

_reported_pid: int | None = None   # the process that already reported its first fatal error
_pending_status: int | None = None
_armed = False


def message(enrichment: Enrichment) -> str:
    """``<id> (<resolution>): <summary>; fix: <first fix>``, redacted, at most MAX_BYTES in UTF-8."""
    text = f"{enrichment.id} ({enrichment.resolution}): {enrichment.summary}"
    if enrichment.fixes:
        text += f"; fix: {enrichment.fixes[0]}"
    return cut(redact_text(" ".join(text.split())))


def cut(text: str, limit: int = MAX_BYTES) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def path() -> str | None:
    """Where the message goes: ENRICH_TERMINATION_LOG (empty: nowhere), else Kubernetes' file."""
    configured = os.environ.get("ENRICH_TERMINATION_LOG")
    if configured is not None:
        return configured.strip() or None
    if os.path.isfile(KUBERNETES_PATH) and os.access(KUBERNETES_PATH, os.W_OK):
        return KUBERNETES_PATH
    return None


def write(text: str, target: str | None = None) -> bool:
    """Write ``text`` unless the file already holds a message; True when written."""
    target = target or path()
    if not target:
        return False
    fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)   # processes of one container dying together
        if os.fstat(fd).st_size:
            return False
        os.write(fd, cut(text).encode("utf-8"))
        return True
    finally:
        os.close(fd)


def report_fatal(enrichment: Enrichment | None, *, set_status: bool = False) -> None:
    """A terminal catch point saw ``enrichment`` kill this process: say so, once per process."""
    global _reported_pid, _pending_status
    if enrichment is None or enrichment.generic or not enrichment.resolution:
        return
    if _reported_pid == os.getpid() or _interactive():
        return
    _reported_pid = os.getpid()
    with fail_open("termination message"):
        write(message(enrichment))
    with fail_open("fatal report"):
        _append_report(enrichment)
    if set_status and exit_codes_enabled():
        _pending_status = exit_code(enrichment.resolution)


def exit_codes_enabled() -> bool:
    """ENRICH_EXIT_CODES=1: exit with the resolution's status (docs/resolutions.md)."""
    return os.environ.get("ENRICH_EXIT_CODES", "").strip().lower() in ("1", "true", "yes", "on")


def arm() -> None:
    """Register the handler that applies a recorded exit status; early, so that it runs late."""
    global _armed
    if not _armed and exit_codes_enabled() and not settings.disabled():
        _armed = True
        atexit.register(_exit_with_pending_status)


def _exit_with_pending_status() -> None:
    status = _pending_status
    if status is None or _reported_pid != os.getpid():
        return
    with fail_open("exit status"):
        import logging
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or replaced stream
            pass
    os._exit(status)


def _append_report(enrichment: Enrichment) -> None:
    target = os.environ.get(REPORT_ENV)
    if not target:
        return
    line = json.dumps({"pid": os.getpid(), "id": enrichment.id, "resolution": enrichment.resolution,
                       "message": message(enrichment)}) + "\n"
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def _interactive() -> bool:
    """In a REPL sys.excepthook does not end the process."""
    return bool(getattr(sys, "ps1", None)) or bool(sys.flags.interactive)
