"""Per-fingerprint rate limit of telemetry events (the counter stays exact)."""

from __future__ import annotations

import time
from collections import OrderedDict

from enrich import forksafe


class RateLimit:
    """Per fingerprint: the first ``burst`` events, then one per ``interval`` seconds."""

    def __init__(self, burst: int = 5, interval: float = 60.0, size: int = 1024):
        self.burst, self.interval, self.size = burst, interval, size
        self._seen: OrderedDict[str, list] = OrderedDict()   # key -> [window start, count, suppressed]
        self._lock = forksafe.Lock()

    def allow(self, key: str, now: float | None = None) -> tuple[bool, int]:
        """Whether to emit, and how many were suppressed since the last emitted one."""
        now = time.monotonic() if now is None else now
        with self._lock:
            state = self._seen.pop(key, None) or [now, 0, 0]
            self._seen[key] = state
            if len(self._seen) > self.size:
                self._seen.popitem(last=False)
            if now - state[0] >= self.interval:
                state[0], state[1] = now, 0
            state[1] += 1
            if state[1] <= self.burst:
                suppressed, state[2] = state[2], 0
                return True, suppressed
            state[2] += 1
            return False, 0
