"""For exceptions the catalog does not know: say which condition raised it, with live values.

The raising frame's source is parsed (cached per file, bounded); the ``assert`` at the raise
line, or the ``if`` around the ``raise``, is stated with the values of the plain names and
attributes in it, read from the frame. Nothing is evaluated: no call, no subscript, no repr()
of arbitrary objects.
"""

from __future__ import annotations

import ast
import functools
import linecache
from types import ModuleType

from enrich.capture import display, read_path
from enrich.explain import Enrichment
from enrich.facts import Facts, Frame

MAX_SOURCE = 2_000_000    # bytes of a source file worth parsing
MAX_VALUES = 8


@functools.lru_cache(maxsize=64)
def _tree(filename: str) -> ast.Module | None:
    lines = linecache.getlines(filename)
    source = "".join(lines)
    if not source or len(source) > MAX_SOURCE:
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def guard_at(filename: str, lineno: int) -> tuple[str, ast.expr] | None:
    """("assert"|"if"|"else", condition) for the raise or assert statement at ``lineno``."""
    tree = _tree(filename)
    if tree is None:
        return None
    found = None

    def visit(node: ast.AST, guard: tuple[str, ast.expr] | None) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if found:
                return
            start, end = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if start is not None and not (start <= lineno <= (end or start)):
                continue
            if isinstance(child, ast.Assert) and start == lineno:
                found = ("assert", child.test)
            elif isinstance(child, ast.Raise):
                found = guard
            elif isinstance(child, ast.If):
                in_body = any(s.lineno <= lineno <= (s.end_lineno or s.lineno) for s in child.body)
                visit(child, ("if", child.test) if in_body else ("else", child.test))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, None)
            else:
                visit(child, guard)
    visit(tree, None)
    return found


def _names(condition: ast.expr) -> list[str]:
    """Plain names and attribute chains in the condition, never inside a call."""
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            for arg in node.args:
                visit(arg)
            return
        if isinstance(node, (ast.Name, ast.Attribute)):
            path = ast.unparse(node)
            if all(part.isidentifier() for part in path.split(".")):
                if path not in out:
                    out.append(path)
                return
        for child in ast.iter_child_nodes(node):
            visit(child)
    visit(condition)
    return out


def explain_site(facts: Facts, mechanism: str = "") -> Enrichment | None:
    frame: Frame | None = facts.raise_frame
    if frame is None or frame.live is None or not frame.filename:
        return None
    guard = guard_at(frame.filename, frame.lineno)
    if guard is None:
        return None
    kind, condition = guard
    values = {}
    for path in _names(condition):
        value = read_path(frame.live, path)
        if value is not None and not callable(value) and not isinstance(value, ModuleType):
            values[path] = display(value, path.rsplit(".", 1)[-1])
        if len(values) >= MAX_VALUES:
            break
    source = ast.unparse(condition)
    stated = {"assert": f"`assert {source}` failed", "if": f"`{source}` was true",
              "else": f"`{source}` was false"}[kind]
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    summary = f"{facts.type_name} raised in {frame.site} because {stated}" + (f" with {shown}" if shown else "") + "."
    return Enrichment(id=f"generic/{facts.type_name}", title=f"{facts.type_name} at {frame.site}",
                      engine=frame.module.split(".")[0], component="unknown", summary=summary,
                      fixes=("the values above are those of the failing process: check which of them is not what "
                             "the condition expects, and where it came from (a flag, a config field, a shape)",),
                      values=values, site=frame.site, mechanism=mechanism, generic=True)
