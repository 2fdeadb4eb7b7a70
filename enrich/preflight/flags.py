"""The launch command line: which engine, which model, and the flags preflight reads.

The flag table below is the only place that knows the engines' spellings (aliases, abbreviations,
deprecated names, defaults). Its shape is small on purpose, so that a fuller per-release table can
replace ``FLAGS`` without touching the parser: ``{engine: {dest: Flag}}``.
Checked against vLLM 0.10.1.1 (engine/arg_utils.py, entrypoints/openai/cli_args.py) and
sglang 0.5.23 (srt/arg_groups/fields/*.py; 0.5.2 had the same names).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]           # every spelling the engine accepts, deprecated ones included
    kind: str = "str"                # str | int | float | bool | size (an int that may be written 10k, 1M)
    default: Any = None


def _flags(**table: Flag) -> dict[str, Flag]:
    return table


FLAGS: dict[str, dict[str, Flag]] = {
    "vllm": _flags(
        model=Flag(("--model",)),
        tp=Flag(("--tensor-parallel-size", "-tp"), "int", 1),
        pp=Flag(("--pipeline-parallel-size", "-pp"), "int", 1),
        dp=Flag(("--data-parallel-size", "-dp"), "int", 1),
        enable_ep=Flag(("--enable-expert-parallel",), "bool", False),
        max_model_len=Flag(("--max-model-len",), "size"),
        gpu_memory_utilization=Flag(("--gpu-memory-utilization",), "float", 0.9),
        dtype=Flag(("--dtype",), "str", "auto"),
        kv_cache_dtype=Flag(("--kv-cache-dtype",), "str", "auto"),
        quantization=Flag(("--quantization", "-q"), "str"),
        trust_remote_code=Flag(("--trust-remote-code",), "bool", False),
        max_num_batched_tokens=Flag(("--max-num-batched-tokens",), "size"),
        max_num_seqs=Flag(("--max-num-seqs",), "int"),
        enforce_eager=Flag(("--enforce-eager",), "bool", False),
        block_size=Flag(("--block-size",), "int", 16),
        attention_backend=Flag(("--attention-backend",), "str"),
        mm_encoder_tp_mode=Flag(("--mm-encoder-tp-mode",), "str", "weights"),
        cpu_offload_gb=Flag(("--cpu-offload-gb",), "float", 0.0),
        port=Flag(("--port",), "int", 8000),
        host=Flag(("--host",), "str"),
        hf_overrides=Flag(("--hf-overrides",), "str"),
    ),
    "sglang": _flags(
        model=Flag(("--model-path", "--model")),
        tp=Flag(("--tp-size", "--tensor-parallel-size"), "int", 1),
        pp=Flag(("--pp-size", "--pipeline-parallel-size"), "int", 1),
        dp=Flag(("--dp-size", "--data-parallel-size"), "int", 1),
        ep=Flag(("--ep-size", "--expert-parallel-size", "--ep"), "int", 1),
        enable_dp_attention=Flag(("--enable-dp-attention",), "bool", False),
        attn_dp=Flag(("--attention-data-parallel-size",), "int", 1),
        max_model_len=Flag(("--context-length",), "size"),
        mem_fraction_static=Flag(("--mem-fraction-static",), "float"),
        dtype=Flag(("--dtype",), "str", "auto"),
        kv_cache_dtype=Flag(("--kv-cache-dtype",), "str", "auto"),
        quantization=Flag(("--quantization",), "str"),
        trust_remote_code=Flag(("--trust-remote-code",), "bool", False),
        chunked_prefill_size=Flag(("--chunked-prefill-size",), "int"),
        max_running_requests=Flag(("--max-running-requests",), "int"),
        attention_backend=Flag(("--attention-backend",), "str"),
        mm_enable_dp_encoder=Flag(("--mm-enable-dp-encoder",), "bool", False),
        port=Flag(("--port",), "int", 30000),
        host=Flag(("--host",), "str"),
    ),
}

# How each engine is started; the first word(s) after the interpreter decide the engine.
_MODULES = {"vllm.entrypoints.openai.api_server": "vllm", "vllm.entrypoints.cli.main": "vllm",
            "sglang.launch_server": "sglang"}


class LaunchError(ValueError):
    """A command line preflight cannot read; the message is one line."""


@dataclass
class Launch:
    engine: str
    model: str | None
    args: dict[str, Any]
    given: set[str] = field(default_factory=set)   # flags that were on the command line (not defaults)
    argv: list[str] = field(default_factory=list)


def split_engine(command: list[str]) -> tuple[str, list[str]]:
    """(engine, the engine's own arguments) for a launch command as typed or as sys.argv."""
    words = list(command)
    if words and os.path.basename(words[0]).startswith("python"):
        words = words[1:]
    if words[:1] == ["-m"] and len(words) > 1:
        module, rest = words[1], words[2:]
        if module in _MODULES:
            return _MODULES[module], rest[1:] if _MODULES[module] == "vllm" and rest[:1] == ["serve"] else rest
        if module in ("vllm", "sglang") and rest[:1] == ["serve"]:
            return module, rest[1:]
        raise LaunchError(f"python -m {module} is not a vLLM or sglang server entry point")
    if words:
        head = os.path.basename(words[0])
        if head in ("vllm", "sglang") and words[1:2] == ["serve"]:
            return head, words[2:]
        for module, engine in _MODULES.items():   # sys.argv[0] of `python -m X` is X's file path
            if words[0].endswith(module.replace(".", os.sep) + ".py"):
                return engine, words[1:]
    raise LaunchError("the command is not `vllm serve`, `sglang serve`, or `python -m "
                      "vllm.entrypoints.openai.api_server` / `sglang.launch_server`")


def _size(text: str) -> int:
    """10485760, 10M, 128k, 1m (vLLM accepts the suffixed forms in recent releases)."""
    text = text.strip()
    scale = {"k": 1000, "K": 1024, "m": 1000**2, "M": 1024**2, "g": 1000**3, "G": 1024**3}.get(text[-1:], 1)
    number = text[:-1] if scale != 1 else text
    return int(float(number) * scale)


_CONVERT = {"int": int, "float": float, "size": _size, "str": str}


def parse(command: list[str], engine: str | None = None) -> Launch:
    """Parse a launch command with the engine's own rules: aliases, prefixes of long flags, defaults."""
    found_engine, rest = split_engine(command) if engine is None else (engine, list(command))
    table = FLAGS[found_engine]
    parser = argparse.ArgumentParser(prog=found_engine, add_help=False, allow_abbrev=True, exit_on_error=False)
    for dest, flag in table.items():
        if flag.kind == "bool":
            parser.add_argument(*flag.names, dest=dest, action="store_true", default=None)
            parser.add_argument(*("--no-" + n[2:] for n in flag.names if n.startswith("--")),
                                dest=dest, action="store_false")
        else:
            parser.add_argument(*flag.names, dest=dest, default=None)
    positional = []
    words = list(rest)
    if found_engine == "vllm" and words and not words[0].startswith("-"):
        positional.append(words.pop(0))    # vllm serve MODEL
    try:
        namespace, _unknown = parser.parse_known_args(words)
    except (argparse.ArgumentError, SystemExit) as exc:
        raise LaunchError(f"cannot read the {found_engine} command line: {exc}") from None
    args: dict[str, Any] = {}
    given = set()
    for dest, flag in table.items():
        value = getattr(namespace, dest)
        if value is None:
            args[dest] = flag.default
            continue
        given.add(dest)
        if flag.kind != "bool":
            try:
                value = _CONVERT[flag.kind](value)
            except ValueError:
                if not (dest == "max_model_len" and str(value) in ("auto", "-1")):
                    raise LaunchError(f"{flag.names[0]} {value!r} is not a valid {flag.kind}") from None
                value = None
        args[dest] = value
    model = args.pop("model") or (positional[0] if positional else None)
    return Launch(found_engine, model, args, given, list(command))
