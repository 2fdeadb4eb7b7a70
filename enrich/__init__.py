"""enrich: recognise LLM-serving errors as they happen and say what an expert would.

    import enrich
    enrich.install()

Importing this package is cheap: everything else loads on install() or on the
first exception, which is why the functions below import inside their bodies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from enrich.model import Enrichment
    from enrich.activation.installer import Handle

from enrich.versions import VERSION as __version__
__all__ = ["install", "uninstall", "annotate", "Enrichment", "__version__"]


def __getattr__(name: str):
    if name == "Enrichment":   # the pipeline's currency, loaded only when asked for
        from enrich.model import Enrichment
        return Enrichment
    raise AttributeError(f"module 'enrich' has no attribute {name!r}")


def install(**options) -> "Handle":
    """Turn enrichment on in this process (idempotent: later calls return the same handle).

    Options: ``integrations`` (a list to use instead of the installed ones),
    ``disable`` (integration or target names), ``excepthooks`` (default True).
    """
    from enrich.activation.installer import install as _install
    return _install(**options)


def uninstall() -> None:
    """Turn enrichment off; hooks are restored only where they are still enrich's."""
    from enrich.activation.installer import uninstall as _uninstall
    _uninstall()


def annotate(exc: BaseException) -> "Enrichment | None":
    """Enrich a live exception explicitly; returns what is known about it, or None."""
    from enrich import settings
    if settings.disabled():
        return None
    from enrich.pipeline import process   # the pipeline loads on first use: `import enrich` stays cheap
    return process(exc, "annotate")
