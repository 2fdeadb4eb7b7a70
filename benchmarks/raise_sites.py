"""Catalog entries generated from an installed engine's real raise sites (for benchmarks)."""

from __future__ import annotations

import re

from enrich.catalog.index import required_words
from enrich.catalog.schema import Entry, Sample
from enrich.raise_sites import scan_package


def entries(limit: int, package: str = "sglang") -> list[Entry]:
    """One entry per ``raise X("...")`` site with a message, known by its site and its template."""
    out = []
    for site in scan_package(package):
        if len(out) >= limit:
            break
        if site.kind != "raise" or not site.exception or site.pattern is None:
            continue
        pattern = re.compile(site.pattern)
        message = "".join(p if p else "7" for p in site.template)
        out.append(Entry(
            id=f"bench/site-{len(out)}", title=message[:60], engine=package, component="config",
            exceptions=(site.exception,), meaning="-", causes=("-",), summary=("-",), fixes=(("-",),),
            samples=(Sample(message=message, origin="generated", site=site.site),),
            # a template with no words of its own ("{a}: {b}") is known by its site only
            message=pattern if required_words(pattern) else None, sites=(site.site,),
        ))
    return out
