"""What a model directory says about the model, read offline and without loading a weight.

config.json (with its text and vision sub-configs), the safetensors index (``metadata.total_size``)
or, without one, the safetensors headers (8-byte little-endian length, then a JSON header with the
dtype and shape of every tensor). A Hugging Face cache (``models--org--name/snapshots/REV``) and a
repository id already in the local cache are found too.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1,
               "I64": 8, "I32": 4, "U32": 4, "I16": 2, "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F4": 0.5}
TORCH_DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "float8_e4m3fn": 1}
MAX_HEADER = 100 * 2**20   # safetensors refuses larger headers too


class ModelError(ValueError):
    """An unreadable model directory; the message names the file and the field."""


@dataclass
class Model:
    path: Path
    config: dict                       # config.json as written
    text: dict                         # the language model's config (text_config / llm_config, or config itself)
    vision: dict | None = None
    weight_bytes: int | None = None
    weight_source: str = ""            # "index", "headers", "estimate"
    dtype_bytes: dict[str, int] = field(default_factory=dict)
    tokenizer_max_length: int | None = None


def locate(name: str) -> Path:
    """The directory holding config.json for a path, a HF cache folder or a cached repo id."""
    path = Path(name).expanduser()
    if path.is_dir():
        snapshots = path / "snapshots"
        if not (path / "config.json").exists() and snapshots.is_dir():
            revisions = sorted(snapshots.iterdir(), key=lambda p: p.stat().st_mtime)
            if revisions:
                return revisions[-1]
        return path
    if "/" in name and not name.startswith((".", "/")):
        home = Path(os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", "~/.cache/huggingface")) / "hub")
        cached = home.expanduser() / ("models--" + name.replace("/", "--"))
        if cached.is_dir():
            return locate(str(cached))
    raise ModelError(f"{name}: no such model directory (preflight reads models offline: a local path or a "
                     "repository already in the Hugging Face cache)")


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: (top level) must be a JSON object")
    return data


def _sub(config: dict, key: str, file: Path) -> dict | None:
    value = config.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ModelError(f"{file}: {key} must be an object, got {type(value).__name__}")
    return value


_INT_FIELDS = ("num_attention_heads", "num_key_value_heads", "num_hidden_layers", "hidden_size",
               "intermediate_size", "head_dim", "max_position_embeddings", "vocab_size")


def _check_fields(section: dict, where: str, file: Path) -> None:
    for key in _INT_FIELDS:
        value = section.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ModelError(f"{file}: {where}{key} must be a non-negative integer, got {value!r}")


def read(name: str) -> Model:
    path = locate(name)
    file = path / "config.json"
    config = _json(file)
    text = _sub(config, "text_config", file) or _sub(config, "llm_config", file) or _sub(config, "language_config", file)
    text_prefix = "text_config." if "text_config" in config else ("llm_config." if "llm_config" in config else "")
    merged = {**config, **text} if text else config
    vision = _sub(config, "vision_config", file)
    _check_fields(merged, text_prefix, file)
    if vision:
        _check_fields(vision, "vision_config.", file)
    for key in ("quantization_config", "rope_scaling"):
        if merged.get(key) is not None:
            _sub(merged, key, file)
    model = Model(path=path, config=config, text=merged, vision=vision)
    _weights(model)
    tokenizer = path / "tokenizer_config.json"
    if tokenizer.exists():
        try:
            value = json.loads(tokenizer.read_text(encoding="utf-8")).get("model_max_length")
            model.tokenizer_max_length = int(value) if isinstance(value, (int, float)) and value < 1e12 else None
        except (OSError, ValueError, AttributeError):
            pass
    return model


def _weights(model: Model) -> None:
    index = sorted(model.path.glob("*.safetensors.index.json"))
    if index:
        data = _json(index[0])
        total = (data.get("metadata") or {}).get("total_size")
        if total is not None:
            if not isinstance(total, (int, float)) or total < 0:
                raise ModelError(f"{index[0]}: metadata.total_size must be a byte count, got {total!r}")
            model.weight_bytes, model.weight_source = int(total), "index"
            return
    files = sorted(model.path.glob("*.safetensors"))
    if files:
        per_dtype: dict[str, int] = {}
        for file in files:
            for dtype, n_bytes in header_bytes(file).items():
                per_dtype[dtype] = per_dtype.get(dtype, 0) + n_bytes
        model.dtype_bytes = per_dtype
        model.weight_bytes, model.weight_source = sum(per_dtype.values()), "headers"


def header_bytes(file: Path) -> dict[str, int]:
    """Bytes per dtype of the tensors in one safetensors file, from its header only."""
    try:
        with open(file, "rb") as stream:
            raw = stream.read(8)
            if len(raw) != 8:
                raise ModelError(f"{file}: header length: file shorter than 8 bytes")
            (length,) = struct.unpack("<Q", raw)
            if length > MAX_HEADER:
                raise ModelError(f"{file}: header length: {length} bytes is not a safetensors header")
            header = json.loads(stream.read(length))
    except OSError as exc:
        raise ModelError(f"{file}: cannot be read ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{file}: header: not valid JSON ({exc})") from None
    totals: dict[str, int] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or "dtype" not in info or "shape" not in info:
            raise ModelError(f"{file}: header.{name}: needs dtype and shape")
        count = 1
        for dim in info["shape"]:
            count *= int(dim)
        size = DTYPE_BYTES.get(info["dtype"])
        if size is None:
            raise ModelError(f"{file}: header.{name}.dtype: unknown dtype {info['dtype']!r}")
        totals[info["dtype"]] = totals.get(info["dtype"], 0) + int(count * size)
    return totals
