"""Preflight inside the engine's launching process (called by the sglang and vLLM plugins)."""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys

from enrich.preflight import BLOCKED, DONE, ENV

logger = logging.getLogger("enrich.preflight")


def _mode() -> str:
    mode = os.environ.get(ENV, "warn").strip().lower()
    return mode if mode in ("off", "warn", "block") else "warn"


def run(engine: str, argv: list[str] | None = None) -> None:
    mode = _mode()
    if mode == "off" or os.environ.get(DONE) or multiprocessing.parent_process() is not None:
        return
    os.environ[DONE] = "1"
    from enrich.preflight.check import pick_gpu, preflight
    from enrich.preflight.flags import LaunchError
    try:
        # the engine may already listen on its port by the time its plugins load: no bind test here
        report = preflight(list(sys.argv if argv is None else argv), gpu=pick_gpu(None, None, None), check_port=False)
    except LaunchError as exc:   # not a server launch (a script, a test run): nothing to check
        logger.debug("enrich preflight: not a launch command (%s)", exc)
        return
    except Exception as exc:  # noqa: BLE001 - fail open: the launch goes on
        logger.warning("enrich preflight: not run (%s)", str(exc)[:300])
        return
    for finding in report.outcome.findings:
        log = logger.error if finding.severity == "error" else logger.warning
        log("enrich preflight [%s] %s%s", finding.id, finding.summary,
            "".join(f"\n  fix {i}: {fix}" for i, fix in enumerate(finding.fixes, 1)))
    if mode == "block" and report.outcome.failing:
        first = next(f for f in report.outcome.findings if f.severity == "error")
        raise _blocked(first)


def _blocked(finding) -> SystemExit:
    print(f"enrich preflight [{finding.id}] {finding.summary} (ENRICH_PREFLIGHT=block)", file=sys.stderr)
    return SystemExit(BLOCKED)
