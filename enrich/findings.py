"""Explain every error found in a log: group repeats, match the catalog, name root causes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import IO

from enrich.catalog import Catalog, get_catalog
from enrich.explain import explain
from enrich.logtext import TextException, scan, to_facts
from enrich.match import best_match
from enrich.redact import redact_text
from enrich.catalog.resolution import line as resolution_line


@dataclass
class Finding:
    exception: str                 # the exception type as written ("" when the traceback was cut)
    message: str
    line: int                      # first line in the input
    count: int = 1
    id: str | None = None
    title: str | None = None
    summary: str | None = None
    fixes: list[str] = field(default_factory=list)
    partial: bool = False
    root_cause: bool = True
    streams: list[str] = field(default_factory=list)
    site: str = ""
    kind: str = "exception"        # or "log": an error line that is not an exception
    wrapper: bool = False          # its catalog entry says it wraps an error found elsewhere
    generic: bool = False          # not in the catalog: the summary states the raise site's condition
    resolution: str | None = None  # what an orchestrator should do (enrich.resolution)

    def as_json(self) -> dict:
        return {"id": self.id, "exception": self.exception or None, "message": self.message, "line": self.line,
                "count": self.count, "fixes": self.fixes, "title": self.title, "summary": self.summary,
                "partial": self.partial, "root_cause": self.root_cause, "streams": self.streams,
                "site": self.site, "kind": self.kind, "generic": self.generic,
                "resolution": self.resolution}


def findings(stream: IO[str], catalog: Catalog | None = None) -> list[Finding]:
    catalog = catalog or get_catalog()
    found = scan(stream)
    outer = {id(e.led_to) for e in found if e.led_to is not None}
    grouped: dict[tuple, Finding] = {}
    for exc in found:
        key = _key(exc)
        finding = grouped.get(key)
        if finding is None:
            grouped[key] = finding = _finding(exc, catalog)
            finding.root_cause = id(exc) not in outer and not finding.wrapper
        else:
            finding.count += 1
        if exc.stream and exc.stream not in finding.streams:
            finding.streams.append(exc.stream)
    return sorted(grouped.values(), key=lambda f: f.line)


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _key(exc: TextException) -> tuple:
    """Repeats group together: the same error from 8 ranks differs at most in its numbers."""
    if exc.type or exc.kind == "log":
        return exc.kind, exc.type, NUMBER.sub("#", exc.message)
    return exc.kind, "", exc.frames[-1].site if exc.frames else ""   # a cut traceback: where it was raised


def _finding(exc: TextException, catalog: Catalog) -> Finding:
    facts = to_facts(exc)
    match = best_match(facts, catalog)
    finding = Finding(exception=exc.type, message=redact_text(exc.message), line=exc.line, partial=exc.partial,
                      site=facts.raise_frame.site if facts.raise_frame else "", kind=exc.kind)
    if match is not None:
        enrichment = explain(match, facts, "log")
        finding.id, finding.title = enrichment.id, enrichment.title
        finding.summary, finding.fixes = enrichment.summary, list(enrichment.fixes)
        finding.wrapper = match.entry.wrapper
        finding.resolution = enrichment.resolution
    elif facts.raise_frame is not None and facts.raise_frame.source.startswith("assert "):
        # not in the catalog: the printed raise line still says which condition failed
        finding.summary = (f"`{facts.raise_frame.source.rstrip(',( ')}` failed in {finding.site} "
                           "(the values are not in the log; `enrich.install()` in the process adds them)")
        finding.generic = True
    return finding


def render_text(items: list[Finding], source: str, color: bool = False) -> str:
    bold = (lambda s: f"\x1b[1m{s}\x1b[0m") if color else (lambda s: s)
    if not items:
        return f"enrich: no errors found in {source}"
    lines = [f"enrich: {len(items)} distinct error{'s' * (len(items) != 1)} in {source}", ""]
    for n, f in enumerate(items, 1):
        where = f"line {f.line}" + (f", {f.count} times" if f.count > 1 else "")
        if f.streams:
            where += f" ({', '.join(f.streams[:8])}{', ...' if len(f.streams) > 8 else ''})"
        first = f.message.splitlines()[0] if f.message else ""
        if f.exception:
            head = f"{f.exception}: {first}"
        elif f.kind == "log":
            head = f"error line: {first}"
        else:
            head = f"traceback cut off before its last line, raised in {f.site or 'unknown code'}"
        lines.append(bold(f"{n}) {where}: {head}"))
        if not f.root_cause:
            lines.append("   (raised while handling an earlier error above: that one is the root cause)")
        if f.id:
            lines.append(f"   [{f.id}] {f.summary}" + ("  (identified from the frames only)" if f.partial else ""))
            lines.append(f"     resolution: {resolution_line(f.resolution)}")
            lines += [f"     fix {i}: {fix}" for i, fix in enumerate(f.fixes, 1)]
            lines.append(f"     more: enrich explain {f.id}")
        elif f.summary:
            lines.append(f"   [not in the catalog] {f.summary}")
        else:
            lines.append("   not in the catalog")
        lines.append("")
    return "\n".join(lines).rstrip()
