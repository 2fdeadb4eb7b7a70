"""Locks that a forked child gets back unlocked.

A fork while another thread holds a lock leaves the child's copy locked forever; every lock in
enrich comes from here and is replaced in the child (os.register_at_fork).
"""

from __future__ import annotations

import os
import threading
import weakref


class Lock:
    def __init__(self, reentrant: bool = False):
        self._reentrant = reentrant
        self._lock = threading.RLock() if reentrant else threading.Lock()
        _all.add(self)

    def __enter__(self):
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()

    def _reset(self) -> None:
        self._lock = threading.RLock() if self._reentrant else threading.Lock()


_all: "weakref.WeakSet[Lock]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for lock in list(_all):
        lock._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
