"""Read an installed engine's source with ``ast``: every raise and assert site, its message
template as a pattern, and the condition that guards it. The catalog's drift check uses it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Iterator


@dataclass(frozen=True)
class RaiseSite:
    module: str
    qualname: str
    line: int
    exception: str            # class name as written ("" for a bare re-raise)
    template: list[str]       # literal parts, "" where a value is formatted in; [] when no message
    guard: str                # the if/assert condition that leads to the raise, as source
    kind: str                 # "raise" or "assert"

    @property
    def site(self) -> str:
        return f"{self.module}:{self.qualname}"

    @property
    def pattern(self) -> str | None:
        if not any(self.template):
            return None
        return "^" + "".join(re.escape(p).replace("\\ ", " ") if p else r"(.+?)" for p in self.template) + "$"


def package_root(package: str) -> Path:
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"{package} is not an installed package")
    return Path(list(spec.submodule_search_locations)[0])


def scan_package(package: str, root: Path | None = None) -> Iterator[RaiseSite]:
    root = root or package_root(package)
    for path in sorted(root.rglob("*.py")):
        module = ".".join((package,) + path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        yield from scan_source(path.read_text(encoding="utf-8", errors="replace"), module)


def scan_source(source: str, module: str) -> list[RaiseSite]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return list(_visit(tree, module, [], None))


def _visit(node: ast.AST, module: str, scope: list[str], guard: ast.expr | None) -> Iterator[RaiseSite]:
    for field, value in ast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for child in children:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, ast.ClassDef):
                yield from _visit(child, module, scope + [child.name], None)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from _visit(child, module, scope + [child.name, "<locals>"], None)
            elif isinstance(child, ast.If):
                yield from _visit_if(child, module, scope)
            elif isinstance(child, ast.Raise) and child.exc is not None:
                yield _raise_site(child, module, scope, guard)
            elif isinstance(child, ast.Assert):
                yield RaiseSite(module, _qualname(scope), child.lineno, "AssertionError",
                                _template(child.msg) if child.msg is not None else [], ast.unparse(child.test),
                                "assert")
            else:
                yield from _visit(child, module, scope, guard)


def _visit_if(node: ast.If, module: str, scope: list[str]) -> Iterator[RaiseSite]:
    for child in node.body:
        yield from _visit(ast.Module(body=[child], type_ignores=[]), module, scope, node.test)
    negated = ast.UnaryOp(op=ast.Not(), operand=node.test)
    for child in node.orelse:
        yield from _visit(ast.Module(body=[child], type_ignores=[]), module, scope, negated)


def _raise_site(node: ast.Raise, module: str, scope: list[str], guard: ast.expr | None) -> RaiseSite:
    exc = node.exc
    call = exc if isinstance(exc, ast.Call) else None
    func = call.func if call else exc
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    template = _template(call.args[0]) if call and call.args else []
    return RaiseSite(module, _qualname(scope), node.lineno, name, template,
                     ast.unparse(guard) if guard is not None else "", "raise")


def _template(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) else "" for v in node.values]
    return []


def _qualname(scope: list[str]) -> str:
    name = ".".join(scope)
    return name.removesuffix(".<locals>") or "<module>"
