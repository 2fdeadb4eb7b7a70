"""What an orchestrator should do with a process that failed this way: a fixed vocabulary.

Every catalog entry names one resolution. A fix says what a person should change; the
resolution says what a machine (a restart policy, an alert route, a launcher) should do
meanwhile. The exit statuses are opt-in (ENRICH_EXIT_CODES=1) and follow sysexits.h where a
code fits. See docs/resolutions.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Resolution:
    name: str
    short: str         # for the note's resolution line
    meaning: str
    exit_code: int     # with ENRICH_EXIT_CODES=1


RESOLUTIONS = {r.name: r for r in (
    Resolution("fix-config", "a restart as-is fails the same way",
               "deterministic: restarting as-is fails the same way; change the launch command, config or "
               "files first", 78),                                                   # EX_CONFIG
    Resolution("reduce-memory", "relaunch with a smaller memory footprint",
               "out of memory: a relaunch with a smaller footprint (fewer tokens, a lower memory fraction, "
               "more GPUs or RAM) should work", 71),                                 # EX_OSERR
    Resolution("retry", "transient: a restart may work",
               "transient: restarting as-is may work (a peer, the network, a port, a race)", 75),   # EX_TEMPFAIL
    Resolution("drain-node", "the node or GPU is at fault: move the workload",
               "the node or GPU is at fault: move the workload and take the node out of service", 69),
    # EX_UNAVAILABLE
    Resolution("upgrade", "install a version that supports this",
               "the installed engine, kernel wheel or driver lacks support: install another version", 72),
    # EX_OSFILE
    Resolution("report-bug", "a defect in model or engine code",
               "a defect in model or engine code: work around it and report it", 70),   # EX_SOFTWARE
)}
NAMES = tuple(RESOLUTIONS)


def meaning(name: str) -> str:
    resolution = RESOLUTIONS.get(name)
    return resolution.meaning if resolution else ""


def line(name: str) -> str:
    """``fix-config (a restart as-is fails the same way)``: how a note states it."""
    resolution = RESOLUTIONS.get(name)
    return f"{name} ({resolution.short})" if resolution else name


def exit_code(name: str) -> int | None:
    resolution = RESOLUTIONS.get(name)
    return resolution.exit_code if resolution else None
