"""Turn a match into an Enrichment: the entry's text rendered with this case's values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from enrich.catalog.flags import for_installed
from enrich.capture import MAX_DERIVED, MAX_TEXT, capture, display
from enrich.facts import Facts
from enrich.guard import fail_open
from enrich.helpers import HELPERS
from enrich.match import Match


@dataclass(frozen=True)
class Enrichment:
    """What enrich knows about one exception; stored on it as a plain dict."""

    id: str
    title: str
    engine: str
    component: str
    summary: str
    fixes: tuple[str, ...]
    values: dict[str, str] = field(default_factory=dict)
    site: str = ""
    mechanism: str = ""
    links: tuple[str, ...] = ()
    generic: bool = False

    @property
    def docs(self) -> str:
        return f"enrich explain {self.id}"

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["fixes"], data["links"], data["values"] = list(self.fixes), list(self.links), dict(self.values)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Enrichment":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["fixes"] = tuple(known.get("fixes", ()))
        known["links"] = tuple(known.get("links", ()))
        return cls(**known)


def explain(match: Match, facts: Facts, mechanism: str = "") -> Enrichment:
    entry = match.entry
    raw: dict[str, Any] = {k: _number(v) for k, v in match.groups.items()}
    if match.frame is not None and match.frame.live is not None:
        raw.update(capture(match.frame.live, entry.capture))
    for name, spec in entry.derive.items():
        args = [facts.message if arg == "message" else raw.get(arg) for arg in spec.args]
        if any(a is None for a in args):
            continue
        with fail_open(f"helper {spec.helper}"):
            result = HELPERS[spec.helper](*args)
            if result is not None:
                raw[name] = result
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
