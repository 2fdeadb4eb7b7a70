"""``enrich run -- CMD ...``: run a command with enrich active in it and in every Python
process it starts (an environment opt-in honoured at interpreter start), under a supervisor
that explains the deaths Python cannot report (enrich.supervisor)."""

from __future__ import annotations

import os
from pathlib import Path

BOOTSTRAP = Path(__file__).resolve().parent / "bootstrap"


def child_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if env is None else env)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(BOOTSTRAP)]
    env["PYTHONPATH"] = os.pathsep.join([str(BOOTSTRAP), *paths])
    env["ENRICH_AUTO"] = "1"
    return env


def run(command: list[str]) -> int:
    if not command:
        raise SystemExit("enrich run: give a command, e.g. enrich run -- python -m sglang.launch_server ...")
    from enrich.supervisor import run as supervise
    return supervise(command)
