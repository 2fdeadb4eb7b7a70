"""Installed versions of distributions, looked up once."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=64)
def installed_version(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None
