"""install() / uninstall(): hooks, and import hooks that wrap the integrations' targets."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from types import ModuleType

from enrich import settings, sinks, state
from enrich.activation import hooks
from enrich.activation.integration import Integration, Target, discover
from enrich.activation.termination import report_fatal
from enrich.activation.wrapping import Patch, make_seam, make_wrapper, wrap_attribute
from enrich.guard import fail_open, logger
from enrich.pipeline import process


@dataclass(eq=False)
class Handle:
    """What install() set up; the same object is returned by every later call."""

    integrations: tuple[Integration, ...] = ()
    disabled: frozenset[str] = frozenset()
    active: bool = False
    patches: dict[str, Patch] = field(default_factory=dict)   # target full name -> patch

    @property
    def wrapped(self) -> list[str]:
        return sorted(self.patches)

    def uninstall(self) -> None:
        uninstall()

    def is_enabled(self, integration: Integration, target: Target) -> bool:
        return not ({integration.name, integration.full_name(target)} & self.disabled)


def install(*, integrations: list[Integration] | None = None, disable: tuple[str, ...] = (),
            excepthooks: bool = True, telemetry: bool = True) -> Handle:
    with state.lock:
        if state.handle is not None:
            return state.handle
        if settings.disabled():
            state.handle = Handle()
            return state.handle
        handle = Handle(disabled=settings.disabled_targets() | frozenset(disable), active=True)
        with fail_open("install"):
            if telemetry:
                sinks.add_sink(_telemetry_sink())
            if excepthooks:
                hooks.install()
            if integrations is None:
                integrations = discover()
            handle.integrations = tuple(i for i in integrations if i.name not in handle.disabled)
            state.handle = handle   # import hooks fire at once for modules already imported, and look here
            for integration in handle.integrations:
                _watch(integration)
        state.handle = handle   # also when part of the set-up failed: what did install stays managed
        return handle


def uninstall() -> None:
    with state.lock:
        handle, state.handle = state.handle, None
        if handle is None:
            return
        handle.active = False
        with fail_open("uninstall"):
            sinks.remove_sink(_telemetry_sink())
            hooks.uninstall()
            for patch in list(handle.patches.values()):
                patch.undo()
            handle.patches.clear()


def current() -> Handle | None:
    return state.handle


@functools.lru_cache(maxsize=1)
def _telemetry_sink():
    # Imported here, not at the top: the telemetry module pulls in the OpenTelemetry API
    # (~30 ms), which install(telemetry=False) and `import enrich` never need.
    from enrich.telemetry.otel import OpenTelemetrySink
    return OpenTelemetrySink(context=_engine_context)


def _engine_context() -> dict:
    """Attributes the installed integrations can tell (ranks, engine version); handed to telemetry."""
    attributes: dict = {}
    handle = state.handle
    for integration in handle.integrations if handle else ():
        if integration.context is not None:
            try:
                attributes.update(integration.context())
            except Exception:  # noqa: BLE001 - an engine that is not set up yet tells nothing
                pass
    return attributes


def _handled_in(exc: BaseException, functions: tuple[str, ...]) -> bool:
    """Whether the function catching ``exc`` (the first frame of its traceback) is one of these."""
    tb = exc.__traceback__
    return bool(functions) and tb is not None and tb.tb_frame.f_code.co_name in functions


_hooked_modules: set[str] = set()   # post-import hooks live as long as the process; one per module


def _watch(integration: Integration) -> None:
    import wrapt

    if integration.setup is not None:
        with fail_open(f"setup of {integration.name}"):
            integration.setup()
    for module_name in sorted({t.module for t in integration.targets}):
        if module_name not in _hooked_modules:
            _hooked_modules.add(module_name)
            # Fires now if the module is already imported, otherwise right after its import.
            wrapt.register_post_import_hook(_on_import(module_name), module_name)
        elif module_name in sys.modules:      # hooked by an earlier install: wrap for this one now
            _on_import(module_name)(sys.modules[module_name])


def _on_import(module_name: str):
    def hook(module: ModuleType) -> None:
        handle = state.handle            # whatever is installed when the module arrives
        if handle is None or not handle.active:
            return
        for integration in handle.integrations:
            for target in integration.targets:
                if target.module != module_name or not handle.is_enabled(integration, target):
                    continue
                with fail_open(f"wrapping {target.module}:{target.attr}"):   # never break the import
                    if integration.version_ok():
                        _wrap(handle, integration, target, module)
    return hook


def _wrap(handle: Handle, integration: Integration, target: Target, module: ModuleType) -> None:
    name = integration.full_name(target)
    if name in handle.patches:
        return
    mechanism = f"{'seam' if target.seam else 'entrypoint'}:{name}"

    def on_error(exc: BaseException):
        if state.active():
            return process(exc, mechanism)
        return None

    def on_seam() -> None:
        exc = sys.exc_info()[1]
        if exc is not None:
            enrichment = on_error(exc)
            sinks.flush()   # the engine is about to log, signal its parent and be killed
            if _handled_in(exc, target.fatal_in):
                report_fatal(enrichment)

    patch = wrap_attribute(module, target.attr, (lambda fn: make_seam(fn, on_seam)) if target.seam
                           else (lambda fn: make_wrapper(fn, on_error)))
    if patch is None:
        logger.debug("enrich: %s:%s not found or not wrappable; skipped", target.module, target.attr)
        return
    handle.patches[name] = patch
