"""Fail open: nothing that goes wrong inside enrich may reach the host process.

Every hook body runs under :func:`fail_open`. A failure is logged once per
distinct place on enrich's own logger and counted; the host never sees it.
"""

from __future__ import annotations

import contextlib
import logging

from enrich import forksafe

logger = logging.getLogger("enrich")

_lock = forksafe.Lock()
_counts: dict[str, int] = {}


def internal_error_count(where: str | None = None) -> int:
    """How many internal failures were swallowed (in total, or at one place)."""
    with _lock:
        return _counts.get(where, 0) if where else sum(_counts.values())


@contextlib.contextmanager
def fail_open(where: str):
    try:
        yield
    except Exception:  # noqa: BLE001 - the whole point
        with _lock:
            first = where not in _counts
            _counts[where] = _counts.get(where, 0) + 1
        try:
            if first:
                logger.warning("enrich: internal error in %s (further ones are counted, not logged)",
                               where, exc_info=True)
        except Exception:  # noqa: BLE001 - a broken logging setup must not leak either
            pass
