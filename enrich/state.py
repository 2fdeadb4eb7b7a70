"""The process-wide state of enrich, in one place.

Written by ``enrich.activation`` (install/uninstall) only; read by the hooks and sinks,
which never reach into the installer. Imports nothing of enrich but ``forksafe``, so any
module may read it without a cycle (as OpenTelemetry keeps its global providers).
"""

from __future__ import annotations

from typing import Any, Callable

from enrich import forksafe

lock = forksafe.Lock(reentrant=True)
handle: Any = None                # the installed ``enrich.activation.Handle``, or None
sinks: list[Callable] = []        # where enrichments go besides the note (see ``enrich.sinks``)


def active() -> bool:
    """Whether enrich is installed and on (a hook left in a chain after uninstall passes through)."""
    current = handle
    return current is not None and current.active
