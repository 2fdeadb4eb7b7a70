"""Activates enrich at interpreter start in every Python process of a tree.

``enrich run`` puts this directory first on PYTHONPATH and sets ENRICH_AUTO=1; children
inherit both, so processes started by subprocess, multiprocessing (spawn, forkserver) or an
engine's launcher run ``enrich.install()`` before their own code. The user's own
sitecustomize, if any, still runs afterwards.
"""

import os
import sys


def _activate() -> None:
    if os.environ.get("ENRICH_AUTO", "") not in ("1", "true", "yes"):
        return
    try:
        import enrich
        enrich.install()
    except Exception:  # noqa: BLE001 - never stop an interpreter from starting
        pass


def _chain_user_sitecustomize() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_activate()
_chain_user_sitecustomize()
