"""The environment that activates enrich in every Python process of a tree: the bootstrap
directory first on PYTHONPATH and ENRICH_AUTO=1, honoured at interpreter start. Used by
``enrich run`` (see ``enrich.activation.supervisor``)."""

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
