"""enrich: recognise LLM-serving errors as they happen and say what an expert would.

    import enrich
    enrich.install()

Importing this package is cheap: everything else loads on install() or on the
first exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from enrich.explain import Enrichment
    from enrich.activation import Handle

__version__ = "0.1.0"
__all__ = ["install", "uninstall", "annotate", "__version__"]


def install(**options) -> "Handle":
    """Turn enrichment on in this process (idempotent: later calls return the same handle).

    Options: ``integrations`` (a list to use instead of the installed ones),
    ``disable`` (integration or target names), ``excepthooks`` (default True).
    """
    from enrich.activation import install as _install
    return _install(**options)


def uninstall() -> None:
    """Turn enrichment off; hooks are restored only where they are still enrich's."""
    from enrich.activation import uninstall as _uninstall
    _uninstall()


def annotate(exc: BaseException) -> "Enrichment | None":
    """Enrich a live exception explicitly; returns what is known about it, or None."""
    from enrich import settings
    if settings.disabled():
        return None
    from enrich.pipeline import process
    return process(exc, "annotate")
