"""Findings as text for a terminal."""

from __future__ import annotations

from enrich.catalog.resolution import line as resolution_line
from enrich.logs.findings import Finding, nearest_root


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
        elif f.kind == "mention":
            head = f"quoted in prose: {first}"      # a title, a sentence, backticks
        elif f.kind != "exception":
            head = f"error line: {first}"
        else:
            head = f"traceback cut off before its last line, raised in {f.site or 'unknown code'}"
        lines.append(bold(f"{n}) {where}: {head}"))
        if not f.root_cause:
            lines.append(_not_root(f, items))
        if f.id:
            lines.append(f"   [{f.id}] {f.summary}" + ("  (identified from what the text still shows)" if f.partial else ""))
            if f.resolution:
                lines.append(f"     resolution: {resolution_line(f.resolution)}")
            lines += [f"     fix {i}: {fix}" for i, fix in enumerate(f.fixes, 1)]
            lines.append(f"     more: enrich explain {f.id}")
        elif f.summary:
            lines.append(f"   [not in the catalog] {f.summary}")
        else:
            lines.append("   not in the catalog")
        if f.folded:
            lines.append(f"   ({f.folded} related error{'s' * (f.folded != 1)} folded in; --all shows them)")
        lines.append("")
    return "\n".join(lines).rstrip()


def _not_root(f: Finding, items: list[Finding]) -> str:
    if f.wrapper and not any(g.root_cause for g in items):     # a wrapper alone: its cause is not shown
        return "   (wraps the real error, which the text does not show or no entry explains)"
    roots = [g for g in items if g.root_cause]
    if not roots:
        return "   (follows from another error: that one is the root cause)"
    root = nearest_root(f, roots)
    return f"   (follows from error {next(n for n, g in enumerate(items, 1) if g is root)}, the root cause)"
