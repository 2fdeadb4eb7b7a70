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
    """Problems found: a sample that its entry misses, or that another entry also matches."""
    problems = []
    for entry in catalog.entries.values():
        for i, sample in enumerate(entry.samples):
            ids = [m.entry.id for m in all_matches(sample_facts(entry, sample), catalog)]
            if ids != [entry.id]:
                problems.append(f"{entry.file}: {entry.id} sample[{i}] matched {ids or 'nothing'}")
    return problems
