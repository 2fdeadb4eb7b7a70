"""Preflight: predict, before the weights load, the failure an engine launch would hit.

The rules are the catalog's ``[entry.predict]`` sections; a finding carries the same ID, summary
and fixes the entry gives after the crash. ``enrich preflight -- CMD`` runs it by hand;
``at_startup`` runs it inside the engine's launching process (see docs/preflight.md).
"""

from __future__ import annotations

ENV = "ENRICH_PREFLIGHT"
DONE = "ENRICH_PREFLIGHT_DONE"   # inherited by the engine's own processes, which then skip it
BLOCKED = 78                     # EX_CONFIG


def at_startup(engine: str, argv: list[str] | None = None) -> None:
    """Check this launch once, in the process that launches the engine; log findings with their IDs.

    ENRICH_PREFLIGHT=off|warn|block (default warn); block exits with status 78 on a predicted failure.
    Never raises anything else: a preflight problem is logged and the launch goes on.
    """
    from enrich.preflight.startup import run
    run(engine, argv)
