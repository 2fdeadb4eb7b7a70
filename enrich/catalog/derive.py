"""Named derive helpers that turn captured values into concrete advice.

Catalog entries call these by name (``[entry.derive]``) instead of holding
arithmetic in data. A helper receives raw values (ints, modules, tensors) and
returns text; it must not call ``repr()`` on what it is given. When an argument
is missing the derived value is simply not available.

A third-party catalog (entry point ``enrich.catalogs``) brings its own helpers with
:func:`register`, called when its package is imported (before its entries are parsed).
"""

from __future__ import annotations

import re
import sys
from typing import Any, Callable

HELPERS: dict[str, Callable[..., Any]] = {}

NUM_HEAD_ATTRS = ("n_heads", "num_heads", "num_attention_heads")
NUM_KV_HEAD_ATTRS = ("n_kv_heads", "num_k_heads", "num_kv_heads", "num_key_value_heads")
SCALE_ATTRS = ("scale", "sm_scale")
_HEAD_COUNT_HINTS = ("head", "group", "n_q", "n_kv")
_SCALE_HINTS = ("scale", "scalar", "softmax", "temperature", "head_dim")


def helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The built-in helpers' decorator."""
    HELPERS[fn.__name__] = fn
    return fn


def apply(specs: dict, values: dict[str, Any], *, message: str | None = None, drop_empty: bool = False,
          absent: Callable[[Any], bool] = lambda value: value is None) -> None:
    """Run an entry's ``[entry.derive]`` helpers over ``values``, adding their results in place.

    A helper whose arguments are not all present is skipped; the argument name ``message`` is
    the exception's message. With ``drop_empty``, a derived value that cannot be computed (or
    comes out None) is removed, so templates that need it fall back to plainer ones.
    """
    from enrich.guard import fail_open   # guard imports logging; derive stays import-light for the loader

    for name, spec in specs.items():
        args = [message if arg == "message" else values.get(arg) for arg in spec.args]
        result = None
        if not any(absent(a) for a in args):
            with fail_open(f"helper {spec.helper}"):
                result = HELPERS[spec.helper](*args)
        if result is not None:
            values[name] = result
        elif drop_empty:
            values.pop(name, None)


def register(fn: Callable[..., Any] | None = None, *, name: str | None = None):
    """Register a derive helper under ``name`` (default: the function's name); usable as a decorator.

    A name already taken by another function is refused (ValueError): entries of every catalog
    must keep meaning what their authors tested.
    """
    def add(func: Callable[..., Any]) -> Callable[..., Any]:
        key = name or func.__name__
        if not key.isidentifier():
            raise ValueError(f"derive helper name {key!r} is not an identifier")
        if HELPERS.get(key, func) is not func:
            raise ValueError(f"derive helper {key!r} is already registered")
        HELPERS[key] = func
        return func
    return add(fn) if fn is not None else add


def _int(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number == value or isinstance(value, str) else None


def _join(numbers) -> str:
    return ", ".join(str(n) for n in numbers)


MAX_NUMBER = 10**12   # beyond this a number from a message is not a size worth factoring


def _divisors(n: int) -> list[int]:
    if not 0 < n <= MAX_NUMBER:
        return []
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


@helper
def divisors(n: Any) -> str | None:
    """The divisors of n: "1, 2, 4" for 4."""
    number = _int(n)
    return _join(_divisors(number)) if number and number > 0 else None


@helper
def gpu_counts_dividing(n: Any) -> str | None:
    """The divisors of n that make sense as a number of GPUs (up to 64)."""
    number = _int(n)
    counts = [d for d in _divisors(number) if d <= 64] if number else []
    return _join(counts) if counts else None


def _attention_tp_ok(heads: int | None, kv_heads: int, attn_tp: int, dcp: int = 1) -> bool:
    """sglang's head checks, in attention-TP units (sglang 0.5.23 models/qwen3_5.py
    Qwen3_5AttentionDecoderLayer.__init__): query heads split over attn_tp; KV heads over
    kv_tp = attn_tp / dcp (DCP replicates KV inside the attention-TP group), either evenly
    (kv >= kv_tp) or replicated evenly (kv_tp a multiple of kv)."""
    if heads is not None and heads % attn_tp or attn_tp % dcp:
        return False
    kv_tp = attn_tp // dcp
    return kv_heads % kv_tp == 0 if kv_heads >= kv_tp else kv_tp % kv_heads == 0


def _valid_attention_tp(heads: Any, kv_heads: Any, dcp: int = 1) -> list[int]:
    kv, h = _int(kv_heads), _int(heads)
    if not kv or kv <= 0:
        return []
    limit = min(h if h else kv * 8 * dcp, 4096)
    return [t for t in range(1, limit + 1) if _attention_tp_ok(h, kv, t, dcp)]


@helper
def attention_tp_sizes(heads: Any, kv_heads: Any) -> str | None:
    """Attention-TP sizes (the TP width one attention group spans; equal to --tp without attention
    DP, CP or DCP) that split both the query heads and the KV heads."""
    sizes = _valid_attention_tp(heads, kv_heads)
    return _join(sizes) if sizes else None


def _layout(parallel: Any) -> dict[str, int]:
    """The widths sglang divides --tp-size by, read from its published parallel state."""
    found = {}
    for name in ("tp_size", "attn_dp_size", "attn_cp_size", "attn_dcp_size"):
        try:
            value = _int(getattr(parallel, name))
        except Exception:  # noqa: BLE001 - not published in this process
            value = None
        if value and value > 0:
            found[name] = value
    return found


def _sglang_parallel() -> Any:
    """sglang's parallel state (get_parallel()) when sglang runs in this process; never imports it."""
    context = sys.modules.get("sglang.srt.runtime_context")
    try:
        return context.get_parallel() if context is not None else None
    except Exception:  # noqa: BLE001
        return None


def launch_tp_options(heads: Any, kv_heads: Any, dcp: int = 1, attn_dp: int = 1, attn_cp: int = 1) -> list[int]:
    """--tp values (launch units) that pass sglang's head checks with the given attention DP,
    attention CP and DCP sizes: attn_tp = tp // attn_dp // attn_cp (sglang 0.5.23
    runtime_context.derive_attn_tp_size), kv_tp = attn_tp // dcp."""
    return [t * attn_dp * attn_cp for t in _valid_attention_tp(heads, kv_heads, dcp)]


def _nearest_launch(heads: Any, kv_heads: Any, attn_tp: Any, dcp: int | None) -> str | None:
    layout = _layout(_sglang_parallel())
    attn_dp, attn_cp = layout.get("attn_dp_size", 1), layout.get("attn_cp_size", 1)
    dcp = dcp or layout.get("attn_dcp_size", 1)
    current = layout.get("tp_size") or (_int(attn_tp) or 0) * attn_dp * attn_cp or None
    sizes = launch_tp_options(heads, kv_heads, dcp, attn_dp, attn_cp)
    if current is None or not sizes:
        return None
    below = [s for s in sizes if s < current][-1:]
    above = [s for s in sizes if s > current][:1]
    kept = "".join(f" {flag} {size}" for flag, size in (("--attn-dp-size", attn_dp), ("--attn-cp-size", attn_cp),
                                                      ("--dcp-size", dcp)) if size > 1)
    return " or ".join(f"--tp {s}{kept}" for s in below + above) or None


@helper
def nearest_launch_tp(heads: Any, kv_heads: Any, attn_tp: Any) -> str | None:
    """The --tp values closest to the one in effect, below and above it, in launch units (what
    the user passes): the attention-TP size the model saw is converted back with sglang's own
    attention-DP / CP / DCP sizes when sglang runs in this process, and those flags are kept."""
    return _nearest_launch(heads, kv_heads, attn_tp, None)


@helper
def nearest_launch_tp_kv(heads: Any, kv_heads: Any, attn_tp: Any, kv_tp: Any) -> str | None:
    """As nearest_launch_tp, for a model that also reports its KV-TP size (kv_tp = attn_tp / DCP):
    the DCP size comes from the frame's own two sizes."""
    a, k = _int(attn_tp), _int(kv_tp)
    dcp = a // k if a and k and a % k == 0 else None
    return _nearest_launch(heads, kv_heads, attn_tp, dcp) if dcp else None


def _public_attrs(obj: Any) -> dict[str, Any]:
    try:
        attrs = dict(vars(obj))
    except TypeError:
        return {}
    return {k: v for k, v in attrs.items() if not k.startswith("_")}


def _numeric_attributes(module: Any, wanted: Callable[[str], bool]) -> str | None:
    found = [f"{k}={v}" for k, v in _public_attrs(module).items()
             if isinstance(v, (int, float)) and not isinstance(v, bool) and wanted(k.lower())]
    return ", ".join(found[:8]) or None


@helper
def headlike_attributes(module: Any) -> str | None:
    """Numeric attributes of a module that look like head counts: "num_query_heads=4"."""
    return _numeric_attributes(module, lambda k: any(h in k for h in _HEAD_COUNT_HINTS)
                               and not k.endswith("_dim"))


@helper
def scalelike_attributes(module: Any) -> str | None:
    """Numeric attributes of a module that could give the softmax scale: "head_dim=64"."""
    return _numeric_attributes(module, lambda k: any(h in k for h in _SCALE_HINTS))


@helper
def attention_contract_gaps(layer: Any) -> str | None:
    """For each child of a layer that has projections: what sglang's MLX attention contract misses."""
    children = _children(layer)
    reports = []
    for name, child in children.items():
        if not hasattr(child, "q_proj"):
            continue
        missing = [a for a in ("q_proj", "k_proj", "v_proj", "o_proj", "rope") if not hasattr(child, a)]
        if not any(hasattr(child, a) for a in SCALE_ATTRS):
            missing.append("scale/sm_scale")
        if not any(hasattr(child, a) for a in NUM_HEAD_ATTRS):
            missing.append("a query-head count")
        if not any(hasattr(child, a) for a in NUM_KV_HEAD_ATTRS):
            missing.append("a KV-head count")
        if missing:
            hint = headlike_attributes(child)
            reports.append(f"`{name}` ({type(child).__name__}) lacks {', '.join(missing)}"
                           + (f"; it has {hint}" if hint else ""))
    return "; ".join(reports[:4]) or None


def _children(layer: Any) -> dict[str, Any]:
    children = getattr(layer, "children", None)
    if callable(children):
        try:
            found = children()
            if isinstance(found, dict):
                return found
        except Exception:  # noqa: BLE001
            pass
    return {k: v for k, v in _public_attrs(layer).items() if hasattr(v, "__dict__")}


@helper
def scale_attributes(module: Any) -> str | None:
    """Which KV-cache scale attributes a module (and its ``.attn``) has."""
    names = ("k_scale", "v_scale", "kv_scale")
    parts = []
    for label, obj in ((type(module).__name__, module), ("attn", getattr(module, "attn", None))):
        if obj is None:
            continue
        present = [n for n in names if hasattr(obj, n)]
        parts.append(f"{label} has {', '.join(present) if present else 'none of k_scale/v_scale/kv_scale'}")
    return "; ".join(parts) or None


@helper
def wanted_scale_attribute(module: Any, model: Any) -> str | None:
    """The attribute the failing check looked for, by model family."""
    name = getattr(model, "__name__", "") or type(model).__name__
    if "HunYuan" in name:
        return f"`kv_scale` on {type(module).__name__} (self_attn, not self_attn.attn)"
    return f"`k_scale` on {type(module).__name__}.attn"


_SIZE_MISMATCH = re.compile(r"size mismatch for (?P<name>[^:\n]+): copying a param with shape torch\.Size\(\[(?P<ckpt>[\d, ]*)\]\)"
                            r" from checkpoint, the shape in current model is torch\.Size\(\[(?P<model>[\d, ]*)\]\)")
_PROJECTIONS = ("qkv_proj", "q_proj", "k_proj", "v_proj", "o_proj", "gate_up_proj", "gate_proj", "up_proj",
                "down_proj", "embed_tokens", "lm_head")


def _head_dim(model: Any) -> int | None:
    config = getattr(model, "config", None)
    head_dim = _int(getattr(config, "head_dim", None))
    if head_dim:
        return head_dim
    hidden, heads = _int(getattr(config, "hidden_size", None)), _int(getattr(config, "num_attention_heads", None))
    return hidden // heads if hidden and heads else None


@helper
def projection_heads(message: Any, model: Any = None) -> str | None:
    """Which projections disagree in a load_state_dict size mismatch, and the head counts the
    two shapes imply (with the model's head_dim when its config tells it)."""
    if not isinstance(message, str):
        return None
    kinds: dict[str, list] = {}
    for m in _SIZE_MISMATCH.finditer(message):
        name = m["name"].strip()
        kind = next((k for k in _PROJECTIONS if k in name), name.rsplit(".", 1)[-1])
        entry = kinds.setdefault(kind, [m["ckpt"], m["model"], 0])
        entry[2] += 1
    if not kinds:
        return None
    head_dim = _head_dim(model)
    parts = []
    for kind, (ckpt, current, count) in kinds.items():
        text = f"{kind} ({count} tensor{'s' * (count > 1)}): checkpoint [{ckpt}] vs model [{current}]"
        axis = 1 if kind == "o_proj" else 0
        try:
            c, k = int(ckpt.split(",")[axis]), int(current.split(",")[axis])
        except (IndexError, ValueError):
            c = k = 0
        if head_dim and kind in ("q_proj", "k_proj", "v_proj", "o_proj") and c % head_dim == 0 and k % head_dim == 0:
            text += f" = {c // head_dim} vs {k // head_dim} heads of head_dim {head_dim}"
        elif c and k and c != k:
            text += f" (x{c / k:g} along dim {axis})"
        parts.append(text)
    return "; ".join(parts[:6])


@helper
def after_caret(message: Any) -> str | None:
    """The last line of a Triton CompilationError: the actual error under the caret. A one-line
    message is the front end's own error before it was wrapped: the cause itself."""
    if not isinstance(message, str) or not message.strip():
        return None
    if "^" not in message:
        return message.strip()[:200] if "\n" not in message.strip() else None
    last = [line.strip() for line in message.splitlines() if line.strip()]
    return last[-1][:200] if last and "^" not in last[-1] else None


# Checks and figures for predictions made before the engine starts (``[entry.predict]``).
# A check returns a short statement of what is wrong, or None when nothing is.

def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _sizes(value: Any) -> list[int]:
    items = value if isinstance(value, (list, tuple)) else str(value).replace(",", " ").split()
    return [n for n in (_int(v) for v in items) if n is not None]


@helper
def not_divisible(n: Any, d: Any) -> str | None:
    """"28 % 8 = 4" when d does not divide n."""
    a, b = _int(n), _int(d)
    return f"{a} % {b} = {a % b}" if a is not None and b and a % b else None


@helper
def uneven_split(n: Any, d: Any) -> str | None:
    """Like not_divisible, but only when n is at least d (the engines split the larger count)."""
    a, b = _int(n), _int(d)
    return not_divisible(a, b) if a is not None and b and a >= b else None


@helper
def per_rank(n: Any, parts: Any) -> int | None:
    """n split evenly over parts, or None when it does not split."""
    a, b = _int(n), _int(parts)
    return a // b if a is not None and b and a % b == 0 else None


@helper
def exceeds(value: Any, limit: Any) -> str | None:
    """"131072 > 32768" when value is larger than limit."""
    a, b = _number(value), _number(limit)
    return f"{value} > {limit}" if a is not None and b is not None and a > b else None


@helper
def below(value: Any, floor: Any) -> str | None:
    """"7.5 < 8.0" when value is smaller than floor."""
    a, b = _number(value), _number(floor)
    return f"{value} < {floor}" if a is not None and b is not None and a < b else None


@helper
def gib(n_bytes: Any) -> str | None:
    """A byte count in GiB with two decimals, as the engines print it."""
    n = _number(n_bytes)
    return f"{n / 2**30:.2f}" if n is not None else None


@helper
def sizes_within(candidates: Any, allowed: Any) -> str | None:
    """The sizes in a list ("1, 2, 4, 28") that are also allowed: suggestions re-checked by other rules."""
    keep = set(_sizes(allowed))
    sizes = [n for n in _sizes(candidates) if n in keep]
    return _join(sizes) if sizes else None


@helper
def nearest_tp_within(allowed: Any, tp: Any) -> str | None:
    """The allowed TP sizes closest to the current one, below and above it: "--tp 4"."""
    current, sizes = _int(tp), sorted(set(_sizes(allowed)))
    if current is None or not sizes:
        return None
    picks = [s for s in sizes if s < current][-1:] + [s for s in sizes if s > current][:1]
    return " or ".join(f"--tp {s}" for s in picks) or None


@helper
def names_unknown(names: Any, known: Any) -> str | None:
    """The names (e.g. config.json architectures) when none of them is among the known ones."""
    wanted = [names] if isinstance(names, str) else list(names or [])
    pool = set(known or ())
    return str(wanted) if wanted and not any(n in pool for n in wanted) else None


@helper
def not_in(value: Any, allowed: Any) -> str | None:
    """"72 not in [32, 64, 128]" when value is not one of the allowed numbers."""
    number, sizes = _int(value), _sizes(allowed)
    return f"{number} not in {sizes}" if number is not None and sizes and number not in sizes else None


@helper
def bf16_unsupported(dtype: Any, capability: Any) -> str | None:
    """bfloat16 on a GPU below compute capability 8.0."""
    return below(capability, "8.0") if str(dtype).replace("torch.", "") in ("bfloat16", "bf16") else None


@helper
def needs_remote_code(auto_map: Any, trusted: Any, model_type: Any, known_types: Any) -> str | None:
    """The checkpoint brings its own code (auto_map), transformers lacks its model_type, and it is not trusted."""
    if auto_map is True and trusted is not True and model_type not in set(known_types or ()):
        return f"model_type {model_type!s} needs the checkpoint's own code"
    return None
