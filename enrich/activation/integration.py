"""How an engine integration declares itself: a name, a version gate, its targets.

Integrations are data-like units registered under the ``enrich.integrations``
entry-point group; the core never imports one by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from enrich.guard import logger
from enrich.versions import installed_version, installed_within

GROUP = "enrich.integrations"


@dataclass(frozen=True)
class Target:
    """A callable whose exceptions are enriched as they leave it, or, for a seam, the
    function an engine calls inside its own ``except`` block: the exception being handled
    is enriched (and telemetry flushed) before the engine formats it.

    ``attr`` is a function name or ``Class.method`` inside ``module``; methods are
    preferred (resolved at call time). For functions, earlier ``from X import Y``
    copies in other modules are pointed at the wrapper too.
    """

    name: str
    module: str
    attr: str
    seam: bool = False   # called by the engine while it handles an exception (to format and log it)
    # For a seam: the functions whose ``except`` calling it means the process dies (its
    # termination message is written then); elsewhere the seam only enriches.
    fatal_in: tuple[str, ...] = ()


@dataclass(frozen=True)
class Integration:
    name: str
    distribution: str | None = None       # the package whose version gates the targets
    versions: str | None = None           # a specifier, e.g. ">=0.5,<0.6"
    targets: tuple[Target, ...] = ()
    setup: Callable[[], None] | None = field(default=None, compare=False)   # once, at install
    # Attributes that tell processes apart in telemetry (ranks, engine version); may raise
    # while the engine is not set up, which counts as "nothing to tell".
    context: Callable[[], dict] | None = field(default=None, compare=False)

    def full_name(self, target: Target) -> str:
        return f"{self.name}.{target.name}"

    def version_ok(self) -> bool:
        if not (self.distribution and self.versions):
            return True
        from packaging.specifiers import SpecifierSet   # only for gated integrations (~5 ms)

        if installed_within(self.distribution, SpecifierSet(self.versions)):
            return True
        logger.info("enrich: %s %s is outside %s; its targets are not wrapped",
                    self.distribution, installed_version(self.distribution), self.versions)
        return False


def discover() -> list[Integration]:
    from importlib.metadata import entry_points

    found = []
    for ep in entry_points(group=GROUP):
        try:
            integration = ep.load()
        except Exception as exc:  # noqa: BLE001 - one broken plug-in must not stop the others
            logger.warning("enrich: integration %r could not be loaded: %s", ep.name, exc)
            continue
        if isinstance(integration, Integration):
            found.append(integration)
        else:
            logger.warning("enrich: entry point %r is not an Integration", ep.name)
    return found
