"""Turn a match into an Enrichment: the entry's text rendered with this case's values."""

from __future__ import annotations

from typing import Any

from enrich.catalog.flags import for_installed
from enrich.capture import MAX_DERIVED, MAX_TEXT, capture, display
from enrich.facts import Facts
from enrich.model import Enrichment
from enrich.guard import fail_open
from enrich.catalog import derive
from enrich.match import Match


def explain(match: Match, facts: Facts, mechanism: str = "") -> Enrichment:
    entry = match.entry
    raw: dict[str, Any] = {k: _number(v) for k, v in match.groups.items()}
    if match.frame is not None and match.frame.live is not None:
        raw.update(capture(match.frame.live, entry.capture))
    derive.apply(entry.derive, raw, message=facts.message)
    shown = {name: display(value, name, MAX_DERIVED if name in entry.derive else MAX_TEXT)
             for name, value in raw.items()}
    fixes = [for_installed(text, entry.engine) for text in (first_rendered(alts, shown) for alts in entry.fixes) if text]
    return Enrichment(
        id=entry.id, title=entry.title, engine=entry.engine, component=entry.component,
        summary=first_rendered(entry.summary, shown) or entry.title,
        fixes=tuple(fixes or (render(alts[-1], shown, missing="?") for alts in entry.fixes)),
        values=shown,
        site=match.frame.site if match.frame else "",
        mechanism=mechanism,
        links=entry.links,
        resolution=entry.resolution,
    )


def first_rendered(alternatives: tuple[str, ...], values: dict[str, str]) -> str | None:
    return next((text for text in (render(t, values) for t in alternatives) if text), None)


class _Values(dict):
    """Template values; an unknown field raises KeyError unless a stand-in is set."""

    stand_in: str | None = None

    def __missing__(self, key):
        if self.stand_in is None:
            raise KeyError(key)
        return self.stand_in


def render(template: str, values: dict[str, str], missing: str | None = None) -> str | None:
    """Fill ``{name}`` fields; None when a field is unknown (unless a stand-in is given)."""
    fields = _Values(values)
    fields.stand_in = missing
    try:
        return template.format_map(fields)
    except KeyError:
        return None


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text
