"""How an Enrichment reads in a traceback: one short note."""

from __future__ import annotations

from enrich.catalog.resolution import line
from enrich.model import Enrichment


def note(enrichment: Enrichment) -> str:
    if enrichment.generic:   # not in the catalog: the raise site's own condition, one line
        return f"[enrich: not in the catalog] {enrichment.summary}"
    lines = [f"[{enrichment.id}] {enrichment.summary}"]
    if enrichment.resolution:
        lines.append(f"  resolution: {line(enrichment.resolution)}")
    lines += [f"  fix {i}: {fix}" for i, fix in enumerate(enrichment.fixes, 1)]
    lines.append(f"  more: {enrichment.docs}")
    return "\n".join(lines)
