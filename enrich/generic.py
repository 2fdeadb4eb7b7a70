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
from enrich.model import Enrichment
from enrich.facts import Facts, Frame
from enrich.raise_sites import RaiseSite, scan_source

MAX_SOURCE = 2_000_000    # bytes of a source file worth parsing
MAX_VALUES = 8


@functools.lru_cache(maxsize=64)
def _sites(filename: str) -> dict[int, RaiseSite]:
    """The raise and assert sites of a source file, by line (parsed once, bounded in size)."""
    source = "".join(linecache.getlines(filename))
    if not source or len(source) > MAX_SOURCE:
        return {}
    return {site.line: site for site in scan_source(source, "")}


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
    site = _sites(frame.filename).get(frame.lineno)
    if site is None or not site.guard:
        return None
    condition = ast.parse(site.guard, mode="eval").body
    values = {}
    for path in _names(condition):
        value = read_path(frame.live, path)
        if value is not None and not callable(value) and not isinstance(value, ModuleType):
            values[path] = display(value, path.rsplit(".", 1)[-1])
        if len(values) >= MAX_VALUES:
            break
    stated = f"`assert {site.guard}` failed" if site.kind == "assert" else f"`{site.guard}` was true"
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    summary = f"{facts.type_name} raised in {frame.site} because {stated}" + (f" with {shown}" if shown else "") + "."
    return Enrichment(id=f"generic/{facts.type_name}", title=f"{facts.type_name} at {frame.site}",
                      engine=frame.module.split(".")[0], component="unknown", summary=summary,
                      fixes=("the values above are those of the failing process: check which of them is not what "
                             "the condition expects, and where it came from (a flag, a config field, a shape)",),
                      values=values, site=frame.site, mechanism=mechanism, generic=True)
