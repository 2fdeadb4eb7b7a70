"""Installed versions of distributions, and the one version gate (integrations and entries)."""

from __future__ import annotations

import functools
from typing import Any

VERSION = "0.1.0"   # enrich's own


@functools.lru_cache(maxsize=64)
def installed_version(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def installed_within(distribution: str, specifier: Any) -> bool:
    """Whether the installed ``distribution`` is inside ``specifier`` (a packaging SpecifierSet).

    True when there is no specifier or the distribution is not installed: a gate says no only
    to a version it knows to be outside (logs of another machine, vendored copies).
    """
    if specifier is None:
        return True
    version = installed_version(distribution)
    return version is None or specifier.contains(version, prereleases=True)
