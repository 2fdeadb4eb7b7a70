"""The memory cgroup of this process: its OOM-kill counter, limit and peak (cgroup v2 and v1).

v2: ``memory.events`` (``oom_kill N``), ``memory.max``, ``memory.peak``.
v1: ``memory.oom_control`` (``oom_kill N``), ``memory.limit_in_bytes``, ``memory.max_usage_in_bytes``.
A child started by ``enrich run`` shares the supervisor's cgroup (a container's), so the counter
read before and after tells whether the kernel's OOM killer ran there meanwhile.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ROOT = "/sys/fs/cgroup"
UNLIMITED = 1 << 62   # v1 reports "no limit" as a huge page-rounded number


@dataclass(frozen=True)
class Counters:
    events: str       # the file holding ``oom_kill N``
    limit: str
    peak: str


def oom_counters(pid: int | str = "self") -> Counters | None:
    """The memory cgroup files of ``pid``, or None where none can be read."""
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as stream:
            lines = stream.read().splitlines()
    except OSError:
        return None
    candidates = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        path = path.lstrip("/")
        if controllers == "":
            candidates.append(Counters(*(os.path.join(ROOT, path, name)
                                         for name in ("memory.events", "memory.max", "memory.peak"))))
        elif "memory" in controllers.split(","):
            candidates.append(Counters(*(os.path.join(ROOT, "memory", path, name) for name in
                                         ("memory.oom_control", "memory.limit_in_bytes", "memory.max_usage_in_bytes"))))
    return next((c for c in candidates if os.access(c.events, os.R_OK)), None)


def read_oom_kills(counters: Counters | None) -> int | None:
    if counters is None:
        return None
    try:
        with open(counters.events, encoding="utf-8") as stream:
            for line in stream:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except (OSError, ValueError):
        pass
    return None


def memory_figures(counters: Counters | None) -> tuple[str, str]:
    """The cgroup's memory limit and peak usage, as text (``"256.0 MiB"``, ``"no limit"``, ``""``)."""
    if counters is None:
        return "", ""
    return _bytes_in(counters.limit), _bytes_in(counters.peak)


def _bytes_in(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read().strip()
    except OSError:
        return ""
    if text == "max" or (text.isdigit() and int(text) >= UNLIMITED):
        return "no limit"
    if not text.isdigit():
        return ""
    size = float(text)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return ""
