"""Catalog entries generated from an installed engine's real raise sites (for benchmarks)."""

from __future__ import annotations

import ast
import re
from importlib.util import find_spec
from pathlib import Path
from typing import Iterator

from enrich.catalog.index import required_words
from enrich.catalog.schema import Entry, Sample


def engine_root(package: str = "sglang") -> Path:
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{package} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def raise_sites(package: str = "sglang") -> Iterator[tuple[str, str, str, list[str]]]:
    """(module, qualname, exception class, message parts) for each `raise X(<str or f-string>)`."""
    root = engine_root(package)
    for path in sorted(root.rglob("*.py")):
        module = ".".join((package,) + path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        yield from _visit(tree, module, [])


def _visit(node: ast.AST, module: str, scope: list[str]):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = scope + [child.name] + (["<locals>"] if not isinstance(child, ast.ClassDef) else [])
            yield from _visit(child, module, inner)
        elif isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call) and child.exc.args:
            parts = _parts(child.exc.args[0])
            name = child.exc.func.id if isinstance(child.exc.func, ast.Name) else None
            if parts and name and any(p for p in parts if p):
                qualname = ".".join(s for s in scope if s)
                qualname = qualname[:-len(".<locals>")] if qualname.endswith(".<locals>") else qualname
                yield module, qualname or "<module>", name, parts
        else:
            yield from _visit(child, module, scope)


def _parts(node: ast.AST) -> list[str] | None:
    """Literal text between formatted values ("" marks a value)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) else "" for v in node.values]
    return None


def entries(limit: int, package: str = "sglang") -> list[Entry]:
    out = []
    for i, (module, qualname, exc, parts) in enumerate(raise_sites(package)):
        if len(out) >= limit:
            break
        pattern = "^" + "".join(re.escape(p) if p else r"(.+?)" for p in parts) + "$"
        message = render(parts)
        if not required_words(re.compile(pattern)):
            pattern = None   # a template with no words of its own ("{a}: {b}") is known by its site only
        out.append(Entry(
            id=f"bench/site-{i}", title=message[:60], engine=package, component="config",
            exceptions=(exc,), meaning="-", causes=("-",), summary=("-",), fixes=(("-",),),
            samples=(Sample(message=message, origin="generated", site=f"{module}:{qualname}"),),
            message=re.compile(pattern) if pattern else None, sites=(f"{module}:{qualname}",),
        ))
    return out


def render(parts: list[str]) -> str:
    return "".join(p if p else "7" for p in parts)
