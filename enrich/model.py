"""The pipeline's currency: what enrich knows about one exception.

Every stage after ``explain`` passes an :class:`Enrichment` on; sinks, renderers and the
note read it. It travels on the exception as a plain dict (see ``attach``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


LOG_FIELDS = ("id", "title", "summary", "fixes", "values", "site", "mechanism", "resolution")


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
    resolution: str = ""     # what an orchestrator should do (enrich.catalog.resolution); "" when not in the catalog
    # Where the exception reached a terminal point (uncaught in a thread or process, asyncio's
    # handler, an engine's death seam, a record logged at ERROR, annotate()); "" while it has
    # only been seen on its way, and may yet be caught and dropped by the application.
    reported: str = ""

    @property
    def docs(self) -> str:
        return f"enrich explain {self.id}"

    def log_fields(self) -> dict[str, Any]:
        """The fields a log record or event gets (``record.enrich``, structlog's ``enrich``)."""
        data = self.as_dict()
        return {name: data[name] for name in LOG_FIELDS}

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
