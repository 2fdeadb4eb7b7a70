"""What an exception tells about itself: type, message, and where it was raised.

Facts come from a live exception (frames with their locals) or from text (a
log line, a catalog sample); the matcher treats both the same way.
"""

from __future__ import annotations

import builtins
import linecache
import sys
from dataclasses import dataclass, field
from types import FrameType, TracebackType

MAX_MESSAGE = 4096   # messages are cut to this before any regex runs
MAX_FRAMES = 12      # innermost frames kept for raise-site matching


@dataclass
class Frame:
    module: str
    qualname: str
    lineno: int = 0
    filename: str = ""
    _source: str | None = None
    live: FrameType | None = field(default=None, repr=False, compare=False)
    textual: bool = False    # read from printed text: qualname is only the function's name

    @property
    def site(self) -> str:
        return f"{self.module}:{self.qualname}"

    @property
    def source(self) -> str:
        """The stripped source line at the raise point, read lazily and cached."""
        if self._source is None:
            line = linecache.getline(self.filename, self.lineno) if self.filename else ""
            self._source = line.strip()[:400]
        return self._source


@dataclass
class Facts:
    type_name: str
    classes: tuple[str, ...]      # class names, bare and dotted, most derived first
    message: str
    frames: tuple[Frame, ...]     # innermost first
    exception: BaseException | None = field(default=None, repr=False, compare=False)

    @property
    def raise_frame(self) -> Frame | None:
        return self.frames[0] if self.frames else None


def class_names(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in cls.__mro__:
        if klass is object:
            break
        names.append(klass.__qualname__)
        names.append(f"{klass.__module__}.{klass.__qualname__}")
    return tuple(names)


_PLAIN = (str, int, float, bool, type(None))
# Packages whose exception classes format their own message (Triton's OutOfResources, torch's
# errors, pydantic's ValidationError...): their __str__ is called. Any other class that overrides
# __str__ is read from its args instead: its __str__ might raise, or hang.
SELF_FORMATTING = frozenset({
    "torch", "triton", "sglang", "sgl_kernel", "vllm", "mlx", "mlx_lm", "transformers", "flashinfer",
    "huggingface_hub", "safetensors", "pydantic", "pydantic_core", "ray", "jinja2", "tokenizers",
}) | frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}


def formats_itself(cls: type) -> bool:
    return cls.__str__ is not BaseException.__str__ and cls.__module__.split(".")[0] in SELF_FORMATTING


def safe_message(exc: BaseException, depth: int = 2) -> str:
    """str(exc), without calling repr() on the host's objects: an exception built from
    non-text arguments (``RuntimeError(msg, tensor)``) shows those as ``<Type>``; one built from
    another exception (requests' ConnectionError from urllib3's MaxRetryError) shows its message."""
    args = exc.args if isinstance(getattr(exc, "args", None), tuple) else ()
    try:
        plain = all(isinstance(a, _PLAIN) or isinstance(a, type) for a in args)
        # a builtin class's own formatting would call str() on an object argument (OSError(exc))
        if not formats_itself(type(exc)) or isinstance(exc, KeyError) or not plain and type(exc).__module__ == "builtins":
            if len(args) == 1 and isinstance(args[0], str):
                text = repr(args[0]) if isinstance(exc, KeyError) else args[0]
            elif plain:
                text = str(exc)
            elif len(args) == 1 and isinstance(args[0], BaseException) and depth:
                text = safe_message(args[0], depth - 1)
            else:
                text = f"({', '.join(_shown(a, depth) for a in args)})" if len(args) > 1 else _shown(args[0], depth)
        else:
            text = str(exc)   # the class formats itself (OutOfResources, CompilationError...)
    except Exception:  # noqa: BLE001 - a broken __str__ is the host's, not ours
        return ""
    return text[:MAX_MESSAGE] if isinstance(text, str) else ""


def _shown(arg, depth: int) -> str:
    """One argument of an exception as its repr would show it, the host's objects by type only."""
    if isinstance(arg, _PLAIN):
        return repr(arg)
    if isinstance(arg, type):
        return f"<class '{arg.__module__}.{arg.__qualname__}'>"
    if isinstance(arg, BaseException) and depth:
        return f"{type(arg).__name__}({safe_message(arg, depth - 1)!r})"
    return f"<{type(arg).__name__}>"


def _qualname(frame: FrameType) -> str:
    code = frame.f_code
    qualname = getattr(code, "co_qualname", None)   # 3.11+
    if qualname:
        return qualname
    owner = frame.f_locals.get("self", None)          # 3.10: best effort for methods
    if owner is not None and not isinstance(owner, type):
        return f"{type(owner).__qualname__}.{code.co_name}"
    return code.co_name


def frames_of(tb: TracebackType | None) -> tuple[Frame, ...]:
    frames: list[Frame] = []
    while tb is not None:
        frame = tb.tb_frame
        frames.append(Frame(
            module=str(frame.f_globals.get("__name__", "")),
            qualname=_qualname(frame),
            lineno=tb.tb_lineno,
            filename=frame.f_code.co_filename,
            live=frame,
        ))
        tb = tb.tb_next
    frames.reverse()
    return tuple(frames[:MAX_FRAMES])


def from_exception(exc: BaseException) -> Facts:
    return Facts(
        type_name=type(exc).__qualname__,
        classes=class_names(type(exc)),
        message=safe_message(exc),
        frames=frames_of(exc.__traceback__),
        exception=exc,
    )


def from_text(type_name: str, message: str, frames: tuple[Frame, ...] = ()) -> Facts:
    """Facts for an exception known only as text; builtin and importable classes get their real
    MRO. An empty type (a traceback cut before its last line) matches any class."""
    cls = _resolve_class(type_name) if type_name else None
    classes = class_names(cls) if cls is not None else (type_name.rsplit(".", 1)[-1], type_name)
    return Facts(type_name=type_name, classes=classes, message=message[:MAX_MESSAGE], frames=frames)


def _resolve_class(name: str) -> type | None:
    module, _, attr = name.rpartition(".")
    if not module:
        candidate = getattr(builtins, name, None)
    else:
        mod = sys.modules.get(module)   # never import anything to resolve a name
        candidate = getattr(mod, attr, None) if mod else None
    return candidate if isinstance(candidate, type) and issubclass(candidate, BaseException) else None


def chain(exc: BaseException, limit: int = 8) -> list[BaseException]:
    """The exception and its causes/contexts, outermost first, cycle-safe."""
    seen: set[int] = set()
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(out) < limit:
        seen.add(id(current))
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return out
