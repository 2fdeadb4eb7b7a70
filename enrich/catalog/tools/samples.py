"""Catalog samples as facts: every sample is a test that it matches its own entry only."""

from __future__ import annotations

from enrich.catalog import Catalog, Entry, Sample
from enrich.facts import Facts, Frame, from_text
from enrich.match import all_matches


def sample_facts(entry: Entry, sample: Sample) -> Facts:
    frames: tuple[Frame, ...] = ()
    if sample.site:
        module, _, qualname = sample.site.partition(":")
        frames = (Frame(module, qualname, _source=sample.source or ""),)
    return from_text(sample.exception or entry.exceptions[0], sample.message, frames)


def check_samples(catalog: Catalog) -> list[str]:
    """Problems found: a sample that its entry misses, that another entry wins, or that another
    entry matches just as specifically. (A less specific entry may match too: a message-only
    fallback behind an entry that also knows the raise site is how specificity works.)"""
    problems = []
    for entry in catalog.entries.values():
        if entry.retired is not None:   # matches nothing by design
            continue
        for i, sample in enumerate(entry.samples):
            matches = all_matches(sample_facts(entry, sample), catalog)
            ids = [m.entry.id for m in matches]
            rivals = [m.entry.id for m in matches[1:] if m.rank == matches[0].rank]
            if not matches or ids[0] != entry.id or rivals:
                problems.append(f"{entry.file}: {entry.id} sample[{i}] matched {ids or 'nothing'}")
    return problems
