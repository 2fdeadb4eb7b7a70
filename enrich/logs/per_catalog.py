"""Tables derived from the catalog, built once for the catalog in use."""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

T = TypeVar("T")


def per_catalog(build: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``build(catalog)`` for the last catalog it was given (the one in use)."""
    last: list = [None, None]     # the catalog, its table

    @functools.wraps(build)
    def table(catalog) -> T:
        if last[0] is not catalog:
            last[:] = [catalog, build(catalog)]
        return last[1]
    return table
