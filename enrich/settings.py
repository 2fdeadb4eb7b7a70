"""Switches read from the environment."""

from __future__ import annotations

import os

_FALSY = {"", "0", "false", "no", "off"}


def disabled() -> bool:
    """ENRICH_DISABLED=1 turns enrich off entirely."""
    return os.environ.get("ENRICH_DISABLED", "").strip().lower() not in _FALSY


def disabled_targets() -> frozenset[str]:
    """ENRICH_DISABLED_TARGETS: comma-separated integration or target names.

    ``sglang`` switches off a whole integration, ``sglang.gdn-packed-decode`` one target.
    """
    raw = os.environ.get("ENRICH_DISABLED_TARGETS", "")
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


def generic() -> bool:
    """ENRICH_GENERIC=0 keeps exceptions the catalog does not know free of notes."""
    return os.environ.get("ENRICH_GENERIC", "1").strip().lower() not in _FALSY
