"""Wrap entrypoints so their exceptions are enriched on the way out.

The wrapper is a plain closure, not a proxy object: on the success path it
costs one extra Python call (see benchmarks/), it pickles by reference like
the function it replaces, and it re-raises the very same exception object.
"""

from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable

MARK = "__enrich_wrapped__"


@dataclass
class Patch:
    owner: Any                     # module or class holding the attribute
    name: str
    original: Any                  # the raw attribute (function, staticmethod, classmethod)
    wrapper: Any
    copies: list[tuple[ModuleType, str]] = field(default_factory=list)

    def undo(self) -> None:
        """Put the original back wherever our wrapper is still in place."""
        if self.owner.__dict__.get(self.name) is self.wrapper:
            setattr(self.owner, self.name, self.original)
        for module, name in self.copies:
            if getattr(module, name, None) is self.wrapper:
                setattr(module, name, self.original)


def make_wrapper(fn: Callable, on_error: Callable[[BaseException], None]) -> Callable:
    if inspect.iscoroutinefunction(fn):
        async def wrapper(*args, **kwargs):
            __tracebackhide__ = True  # noqa: F841 - honoured by pytest and sentry
            try:
                return await fn(*args, **kwargs)
            except Exception as exc:
                on_error(exc)
                raise
    else:
        def wrapper(*args, **kwargs):
            __tracebackhide__ = True  # noqa: F841
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                on_error(exc)
                raise
    functools.update_wrapper(wrapper, fn)
    setattr(wrapper, MARK, True)
    return wrapper


def wrap_attribute(module: ModuleType, path: str, on_error: Callable[[BaseException], None]) -> Patch | None:
    """Wrap ``module.path`` (a function or ``Class.method``); None if it is absent or not wrappable."""
    *owners, name = path.split(".")
    owner: Any = module
    for part in owners:
        owner = getattr(owner, part, None)
        if owner is None:
            return None
    raw = owner.__dict__.get(name)
    if raw is None:
        return None
    kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    fn = raw.__func__ if kind else raw
    if not inspect.isfunction(fn) or getattr(fn, MARK, False):
        return None
    wrapped_fn = make_wrapper(fn, on_error)
    wrapper = kind(wrapped_fn) if kind else wrapped_fn
    setattr(owner, name, wrapper)
    patch = Patch(owner, name, raw, wrapper)
    if owner is module:
        patch.copies = _replace_copies(raw, wrapper, module)
    return patch


def _replace_copies(original: Any, wrapper: Any, home: ModuleType) -> list[tuple[ModuleType, str]]:
    """Point earlier ``from home import f`` copies in other modules at the wrapper."""
    replaced = []
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if module is home or not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if value is original:
                namespace[key] = wrapper
                replaced.append((module, key))
    return replaced
