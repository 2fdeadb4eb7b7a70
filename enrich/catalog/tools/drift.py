"""Do an integration's targets still exist in an engine's source? (No import: the source is read.)"""

from __future__ import annotations

import ast
from importlib.util import find_spec
from pathlib import Path

from enrich.activation.integration import Integration


def module_file(module: str, root: Path | None = None) -> Path | None:
    """The source file of ``module``: under ``root`` (an unpacked wheel) or as installed."""
    if root is None:   # the installed package; finding a top-level spec imports nothing
        spec = find_spec(module.split(".")[0])
        if spec is None or not spec.submodule_search_locations:
            return None
        root = Path(list(spec.submodule_search_locations)[0]).parent
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def defines(path: Path, attr: str) -> bool:
    """Whether the file defines ``attr`` (``function`` or ``Class.method``) at that nesting."""
    scope: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8", errors="replace")).body
    *owners, name = attr.split(".")
    for owner in owners:
        scope = next((node.body for node in scope if isinstance(node, ast.ClassDef) and node.name == owner), None)
        if scope is None:
            return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in scope)


def missing_targets(integration: Integration, root: Path | None = None) -> list[str]:
    """Targets whose module or callable is gone from this version of the engine."""
    missing = []
    for target in integration.targets:
        path = module_file(target.module, root)
        if path is None or not defines(path, target.attr):
            missing.append(f"{target.module}:{target.attr}")
    return missing
