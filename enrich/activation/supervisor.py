"""``enrich run -- CMD``: run CMD with enrich active in it, and explain the deaths Python cannot.

The child gets the same activation as before (ENRICH_AUTO and the bootstrap directory on
PYTHONPATH). While it runs the supervisor only passes output through: stdout is inherited
untouched; stderr is copied through a pipe, chunk by chunk, into a bounded ring of its tail.
When stdout and stderr are one file that is not a terminal (``> log 2>&1``), the child gets a
single pipe for both, so their interleaving is kept exactly. SIGINT, SIGTERM and SIGHUP are
forwarded (SIGINT only when it did not come from the terminal, which sent it to the child too).

When the child dies, the supervisor reads what is left: the exit status and signal, the cgroup's
OOM-kill counter before and after, the tail of stderr (a Python traceback or a C++ ``terminate
called after throwing ... what():`` the child printed, read with the log reader), and what the
processes of the tree reported themselves (enrich.termination). A death the tree did not explain
is matched against the catalog (``process/*`` entries describe signals), then reported like any
other finding: a note on stderr, telemetry through the sinks, the termination message. The exit
status is the child's as a shell reports it (128+N for signal N), or with ENRICH_EXIT_CODES=1
the resolution's.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections import deque
from dataclasses import dataclass

from enrich.activation import cgroup
from enrich.activation.installer import install
from enrich.activation.launcher import child_environment
from enrich.activation.termination import REPORT_ENV, exit_codes_enabled, report_fatal
from enrich.attach import attach
from enrich.catalog import get_catalog
from enrich.catalog.resolution import exit_code
from enrich.explain import explain
from enrich.facts import from_exception
from enrich.guard import fail_open
from enrich.match import best_match
from enrich.model import Enrichment
from enrich.render.note import note
from enrich.sinks import emit, flush

RING_BYTES = 256 * 1024      # the tail of stderr kept for classification
TAIL_LINES = 200
CHUNK = 256 * 1024
PIPE_SIZE = 1024 * 1024      # a larger pipe: fewer, larger copies (Linux F_SETPIPE_SZ)
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")
DRAIN_S = 2.0                # after the child exits, how long to wait for its descendants' output


class ProcessDied(Exception):
    """A death without a Python exception, as the supervisor describes it to the catalog."""


@dataclass
class Death:
    status: int                  # Popen's returncode: negative for a signal
    oom_kills: int = 0           # how much the cgroup's OOM-kill counter rose (None: unreadable)
    oom_readable: bool = False
    memory_limit: str = ""
    memory_peak: str = ""
    tail: str = ""

    @property
    def signal(self) -> signal.Signals | None:
        try:
            return signal.Signals(-self.status) if self.status < 0 else None
        except ValueError:
            return None

    @property
    def shell_status(self) -> int:
        return 128 - self.status if self.status < 0 else self.status

    def description(self) -> str:
        """The text ``process/*`` entries match: ``killed by SIGKILL (signal 9); ...``."""
        sig = self.signal
        if sig is None:
            return f"exited with status {self.status}"
        text = f"killed by {sig.name} (signal {sig.value})"
        if sig == signal.SIGKILL:
            if self.oom_kills:
                text += (f"; the OOM killer ran in its cgroup (oom_kill +{self.oom_kills}, "
                         f"limit {self.memory_limit or 'unknown'}, peak {self.memory_peak or 'unknown'})")
            elif self.oom_readable:
                text += "; the cgroup's OOM-kill counter did not move"
            else:
                text += "; no cgroup OOM-kill counter could be read"
        else:
            detail = last_words(self.tail)
            if detail:
                text += f": {detail}"
        return text


def last_words(tail: str) -> str:
    """What native code said last: a C++ terminate's exception and what(), or the last line."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("terminate called after throwing an instance of"):
            what = next((l.partition("what():")[2].strip() for l in lines[i + 1:i + 3] if "what():" in l), "")
            kind = lines[i].rpartition(" of ")[2].strip("'")
            return f"{kind}: {what}" if what else kind
    return lines[-1][:300] if lines else ""


class Ring:
    """The last RING_BYTES of a stream, kept as the chunks that arrived."""

    def __init__(self, size: int = RING_BYTES):
        self.size, self.kept, self.chunks = size, 0, deque()

    def add(self, chunk: bytes) -> None:
        self.chunks.append(chunk)
        self.kept += len(chunk)
        while self.kept - len(self.chunks[0]) >= self.size:
            self.kept -= len(self.chunks.popleft())

    def text(self, lines: int = TAIL_LINES) -> str:
        data = b"".join(self.chunks)[-self.size:]
        return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


def _pump(source: int, target: int, ring: Ring) -> None:
    """Copy ``source`` to ``target`` until EOF; never stop on a failing target."""
    while True:
        try:
            chunk = os.read(source, CHUNK)
        except OSError:
            return
        if not chunk:
            return
        view = memoryview(chunk)
        while view:
            try:
                view = view[os.write(target, view):]
            except OSError:      # our stderr is gone: keep reading so the child never blocks
                break
        ring.add(chunk)


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino) and not stat.S_ISCHR(sa.st_mode)


def run(command: list[str]) -> int:
    """``enrich run -- CMD``: run the command with enrich active in its whole process tree, pass its
    output through, and explain a death it could not report itself; returns the shell's status."""
    if not command:
        raise SystemExit("enrich run: give a command, e.g. enrich run -- python -m sglang.launch_server ...")
    env = child_environment()
    fd, report_path = tempfile.mkstemp(prefix="enrich-fatal-", suffix=".jsonl")
    os.close(fd)
    env[REPORT_ENV] = report_path
    counters = cgroup.oom_counters()
    before = cgroup.read_oom_kills(counters)
    merged = _same_file(1, 2)
    read_end, write_end = os.pipe()
    _enlarge(read_end)
    try:
        child = subprocess.Popen(command, env=env, stderr=write_end, stdout=write_end if merged else None)
    except OSError:
        os.close(read_end)
        os.close(write_end)
        os.unlink(report_path)
        raise   # the CLI says it in one line (127: not found, 126: cannot execute)
    os.close(write_end)
    ring = Ring()
    pump = threading.Thread(target=_pump, args=(read_end, 2, ring), name="enrich-stderr", daemon=True)
    pump.start()
    previous = _forward_signals(child)
    try:
        status = child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    pump.join(DRAIN_S)   # a descendant may still hold the pipe open; its output keeps flowing
    after = cgroup.read_oom_kills(counters)
    death = Death(status=status, tail=ring.text(), oom_readable=before is not None and after is not None)
    if death.oom_readable:
        death.oom_kills = max(0, after - before)
        death.memory_limit, death.memory_peak = cgroup.memory_figures(counters)
    try:
        return conclude(death, _reported(report_path))
    finally:
        with fail_open("supervisor report file"):
            os.unlink(report_path)


def _enlarge(pipe: int) -> None:
    try:
        import fcntl
        fcntl.fcntl(pipe, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except (ImportError, OSError):
        pass   # not Linux, or above /proc/sys/fs/pipe-max-size: the default size works too


def _forward_signals(child: subprocess.Popen) -> dict:
    def forward(signum, _frame):
        if signum == signal.SIGINT and _terminal_sent_it():
            return   # the terminal sent it to the whole foreground group, the child included
        try:
            child.send_signal(signum)
        except OSError:
            pass

    previous = {}
    for name in FORWARDED:
        signum = getattr(signal, name, None)
        if signum is not None:
            previous[signum] = signal.signal(signum, forward)
    return previous


def _terminal_sent_it() -> bool:
    try:
        return os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        return False


def _reported(path: str) -> list[dict]:
    """What the processes of the tree reported as their fatal errors, first first."""
    try:
        with open(path, encoding="utf-8") as stream:
            return [json.loads(line) for line in stream if line.strip()]
    except (OSError, ValueError):
        return []


def conclude(death: Death, reported: list[dict]) -> int:
    """Explain the death unless the tree already did; the exit status to return."""

    resolution = reported[0].get("resolution") if reported else None
    if not reported and death.status != 0:
        enrichment = None
        with fail_open("supervisor"):
            enrichment = explain_death(death)
        if enrichment is not None:
            resolution = enrichment.resolution
    if resolution and exit_codes_enabled() and death.status != 0:
        return exit_code(resolution) or death.shell_status
    return death.shell_status


def explain_death(death: Death) -> Enrichment | None:
    """The finding for a death: from the stderr tail, else a ``process/*`` entry; reported."""

    exc = ProcessDied(death.description())
    enrichment = None
    oom = death.signal == signal.SIGKILL and death.oom_kills
    if not oom:   # an OOM kill is the cause whatever was printed before it
        enrichment = _from_tail(death.tail)
    if enrichment is None and death.signal is not None:
        enrichment = _from_catalog(exc)
    if enrichment is None:
        return None
    how = f"killed by {death.signal.name}" if death.signal else f"exited with status {death.status}"
    sys.stderr.write(f"enrich: the command was {how} (exit status {death.shell_status})\n{note(enrichment)}\n")
    sys.stderr.flush()
    _report(exc, enrichment)
    return enrichment


def _from_tail(tail: str) -> Enrichment | None:
    """The last root cause the catalog knows in what the child printed, unless the child's own
    enrich already explained it there."""
    from enrich.logs import findings

    catalog = get_catalog()
    known = [f for f in findings(io.StringIO(tail), catalog) if f.id and f.root_cause]
    if not known or f"[{known[-1].id}]" in tail:
        return None
    found = known[-1]
    entry = catalog.entries[found.id]
    return Enrichment(id=found.id, title=entry.title, engine=entry.engine, component=entry.component,
                      summary=found.summary or entry.title, fixes=tuple(found.fixes), site=found.site,
                      mechanism="supervisor", links=entry.links, resolution=entry.resolution)


def _from_catalog(exc: ProcessDied) -> Enrichment | None:

    facts = from_exception(exc)
    match = best_match(facts, get_catalog())
    return explain(match, facts, "supervisor") if match is not None else None


def _report(exc: ProcessDied, enrichment: Enrichment) -> None:
    """The same outputs as a fatal error inside the process: note, telemetry, termination message."""

    install(integrations=[], excepthooks=False)   # the telemetry sink, in this process
    enrichment = dataclasses.replace(enrichment, reported="supervisor")   # a death: a terminal point
    if attach(exc, enrichment):
        emit(exc, enrichment)
    flush()
    report_fatal(enrichment)
