"""The launch command line: which engine, which model, and the flags preflight reads.

Spellings, aliases, deprecated names and defaults come from the per-release flag tables
(``patterns/flags/*.json`` through ``enrich.catalog.flags``), the same tables the catalog's fixes
are spelled from. The parser knows every flag of the release, so a prefix of a long flag resolves
(or is ambiguous) as the engine's argparse decides. Preflight keeps only what the tables lack: which
flags it reads, under which short name, and the kind of value each takes.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field
from typing import Any

from enrich.catalog import flags as tables

# {engine: {name preflight uses: (the flag's name in the table, kind)}}; kind: str | int | float |
# bool | size (an int that may be written 10k, 1M)
READS: dict[str, dict[str, tuple[str, str]]] = {
    "vllm": {
        "model": ("--model", "str"), "tp": ("--tensor-parallel-size", "int"),
        "pp": ("--pipeline-parallel-size", "int"), "dp": ("--data-parallel-size", "int"),
        "enable_ep": ("--enable-expert-parallel", "bool"), "max_model_len": ("--max-model-len", "size"),
        "gpu_memory_utilization": ("--gpu-memory-utilization", "float"), "dtype": ("--dtype", "str"),
        "kv_cache_dtype": ("--kv-cache-dtype", "str"), "quantization": ("--quantization", "str"),
        "trust_remote_code": ("--trust-remote-code", "bool"),
        "max_num_batched_tokens": ("--max-num-batched-tokens", "size"), "max_num_seqs": ("--max-num-seqs", "int"),
        "enforce_eager": ("--enforce-eager", "bool"), "block_size": ("--block-size", "int"),
        "attention_backend": ("--attention-backend", "str"), "mm_encoder_tp_mode": ("--mm-encoder-tp-mode", "str"),
        "cpu_offload_gb": ("--cpu-offload-gb", "float"), "port": ("--port", "int"), "host": ("--host", "str"),
        "hf_overrides": ("--hf-overrides", "str"),
    },
    "sglang": {
        "model": ("--model-path", "str"), "tp": ("--tp-size", "int"), "pp": ("--pp-size", "int"),
        "dp": ("--dp-size", "int"), "ep": ("--ep-size", "int"),
        "enable_dp_attention": ("--enable-dp-attention", "bool"), "attn_dp": ("--attn-dp-size", "int"),
        "max_model_len": ("--context-length", "size"), "mem_fraction_static": ("--mem-fraction-static", "float"),
        "dtype": ("--dtype", "str"), "kv_cache_dtype": ("--kv-cache-dtype", "str"),
        "quantization": ("--quantization", "str"), "trust_remote_code": ("--trust-remote-code", "bool"),
        "chunked_prefill_size": ("--chunked-prefill-size", "int"),
        "max_running_requests": ("--max-running-requests", "int"), "attention_backend": ("--attention-backend", "str"),
        "mm_enable_dp_encoder": ("--mm-enable-dp-encoder", "bool"), "port": ("--port", "int"), "host": ("--host", "str"),
    },
}

# How each engine is started; the first word(s) after the interpreter decide the engine.
_MODULES = {"vllm.entrypoints.openai.api_server": "vllm", "vllm.entrypoints.cli.main": "vllm",
            "sglang.launch_server": "sglang"}
_UNDERSCORED = re.compile(r"^--[a-z0-9_]+")


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


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # argparse would print the usage and exit
        raise LaunchError(f"cannot read the {self.prog} command line: {message}")


def _spellings(engine: str, name: str, release: dict[str, tables.Flag]) -> list[str]:
    """Every spelling of a read flag: the release's, else every release's (a flag the sampled
    release lacks is still read, so that a newer or older spelling is not lost)."""
    mine = [s for s, f in release.items() if f.name == name]
    if mine:
        return mine
    table = tables.table(engine)
    found = [s for s, names in (table.spellings.items() if table else ()) if name in names]
    return found or [name]


def _parser(engine: str, version) -> tuple[argparse.ArgumentParser, dict[str, str]]:
    release = tables.release_spellings(engine, version)
    parser = _Parser(prog=engine, add_help=False, allow_abbrev=True, exit_on_error=False)
    taken: set[str] = set()
    kinds: dict[str, str] = {}
    for dest, (name, kind) in READS[engine].items():
        names = [s for s in _spellings(engine, name, release) if s not in taken]
        taken.update(names)
        kinds[dest] = kind
        if kind == "bool":
            parser.add_argument(*names, dest=dest, action="store_true", default=None)
            negated = [f"--no-{s[2:]}" for s in names if s.startswith("--") and f"--no-{s[2:]}" not in release]
            if negated:
                parser.add_argument(*negated, dest=dest, action="store_false")
        else:
            parser.add_argument(*names, dest=dest, default=None)
    rest: dict[str, list[str]] = {}
    for spelling, flag in release.items():           # the release's other flags: parsed, not read
        if spelling not in taken:
            rest.setdefault(flag.name, []).append(spelling)
    for name, names in rest.items():
        dest = "_other_" + name
        if isinstance(tables.default(engine, name, version), bool):
            parser.add_argument(*names, dest=dest, action="store_true")
        else:
            parser.add_argument(*names, dest=dest, nargs="?")
    return parser, kinds


def parse(command: list[str], engine: str | None = None, version=None) -> Launch:
    """Parse a launch command with the engine's own rules for ``version`` (None: the newest in the
    table): aliases, deprecated spellings, prefixes of long flags, the release's defaults."""
    found_engine, rest = split_engine(command) if engine is None else (engine, list(command))
    parser, kinds = _parser(found_engine, version)
    words = list(rest)
    if found_engine == "vllm":     # vLLM's parser takes --max_model_len for --max-model-len
        words = [_UNDERSCORED.sub(lambda m: m.group().replace("_", "-"), w) for w in words]
    positional = []
    if found_engine == "vllm" and words and not words[0].startswith("-"):
        positional.append(words.pop(0))    # vllm serve MODEL
    try:
        namespace, _unknown = parser.parse_known_args(words)
    except argparse.ArgumentError as exc:
        raise LaunchError(f"cannot read the {found_engine} command line: {exc}") from None
    args: dict[str, Any] = {}
    given = set()
    for dest, kind in kinds.items():
        value = getattr(namespace, dest)
        if value is None:
            table_default = tables.default(found_engine, READS[found_engine][dest][0], version)
            args[dest] = None if table_default is tables.MISSING else table_default
            continue
        given.add(dest)
        if kind != "bool":
            try:
                value = _CONVERT[kind](value)
            except ValueError:
                if not (dest == "max_model_len" and str(value) in ("auto", "-1")):
                    raise LaunchError(f"{READS[found_engine][dest][0]} {value!r} is not a valid {kind}") from None
                value = None
        args[dest] = value
    model = args.pop("model") if "model" in given else None
    args.pop("model", None)
    return Launch(found_engine, model or (positional[0] if positional else None), args, given, list(command))


def engine_of(command: list[str]) -> str:
    return split_engine(command)[0]
