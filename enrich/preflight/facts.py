"""Everything the rules may read, under the names ``[entry.predict]`` paths use.

``config.*`` the language model's config.json section as written, ``vision.*`` its vision tower,
``model.*`` the shape in common names (shape.py), ``args.*`` the launch flags with the engine's
defaults and the parallel sizes in effect, ``gpu.*``, ``engine.*`` (name, version, what the
installed engine and transformers know), ``plan.*`` the memory plan, ``host.*`` shared memory and
the port, ``verified.*`` the parallel sizes that pass every rule (computed when a rule asks).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from packaging.version import InvalidVersion, Version

from enrich.preflight import registries
from enrich.preflight.flags import Launch
from enrich.preflight.gpu import Gpu
from enrich.preflight.model import Model
from enrich.preflight.plan import memory_plan
from enrich.preflight.shape import NOT_APPLICABLE, shape

# The release each engine's catalog entries were last verified against: assumed when the engine
# is not installed and no --engine-version is given.
LATEST = {"vllm": "0.34.0", "sglang": "0.5.23"}

# Minimum compute capability (major*10+minor) per quantization method, by vLLM release.
QUANT_MIN_CAPABILITY = {
    "fp8": ((Version("0.5.0"), 89), (None, 80)),        # Marlin weight-only FP8 on Ampere from 0.5
    "awq": ((None, 75),), "gptq": ((None, 60),), "awq_marlin": ((None, 80),), "gptq_marlin": ((None, 80),),
    "marlin": ((None, 80),), "modelopt": ((None, 89),), "modelopt_fp4": ((None, 100),),
    "fbgemm_fp8": ((None, 80),), "bitsandbytes": ((None, 70),),
}
# Head sizes of the attention backends one can force (vLLM 0.10: v1/attention/backends/*.py).
BACKEND_HEAD_SIZES = {"FLASH_ATTN": (32, 64, 96, 128, 160, 192, 224, 256), "FLASHINFER": (64, 128, 256),
                      "XFORMERS": (32, 64, 80, 96, 112, 120, 128, 192, 256)}
BACKEND_CLASS = {"FLASH_ATTN": "FlashAttentionBackend", "FLASHINFER": "FlashInferBackend", "XFORMERS": "XFormersBackend"}
SHM_PER_RANK = 64 * 2**20   # NCCL's shared-memory transport: a few buffers per peer


@dataclass
class Facts:
    launch: Launch
    model: Model
    gpu: Gpu | None
    version: Version | None
    version_source: str
    env: dict[str, str] = field(default_factory=dict)
    check_host: bool = True
    check_port: bool = True          # off inside the engine's own process, which may hold the port already
    verifier: Callable[["Facts", str], list[int]] | None = None   # set by the rule engine
    _spaces: dict[str, Any] | None = None

    @property
    def engine(self) -> str:
        return self.launch.engine

    def with_args(self, **changes: Any) -> "Facts":
        """The same launch with some flags changed (to re-check a suggested fix)."""
        launch = replace(self.launch, args={**self.launch.args, **changes})
        return replace(self, launch=launch, _spaces=None, check_host=False, check_port=False, verifier=None)

    def spaces(self) -> dict[str, Any]:
        if self._spaces is None:
            self._spaces = self._build()
        return self._spaces

    def get(self, path: str) -> Any:
        space, _, rest = path.partition(".")
        if space == "verified":
            return self.verifier(self, rest) if self.verifier else None
        value: Any = self.spaces().get(space)
        for step in rest.split("."):
            if not isinstance(value, dict):
                return None
            value = value.get(step)
        return value

    def _build(self) -> dict[str, Any]:
        m = shape(self.model)
        args = self._args(m)
        gpu = self._gpu()
        engine = self._engine(m, args, gpu)
        plan = memory_plan(self.engine, self.version, m, args, self.gpu)
        _rule_views(plan)
        return {"config": self.model.text, "vision": self.model.vision or {}, "model": m, "args": args,
                "gpu": gpu, "engine": engine, "plan": plan, "host": self._host(args, plan)}

    def _args(self, m: dict[str, Any]) -> dict[str, Any]:
        args = dict(self.launch.args)
        tp, dp = args.get("tp") or 1, args.get("dp") or 1
        if self.engine == "sglang":
            attn_dp = args.get("attn_dp") or 1
            if args.get("enable_dp_attention"):
                attn_dp = max(attn_dp, dp)
            args["attn_tp"] = tp // attn_dp if attn_dp and tp % attn_dp == 0 else tp
            args["ep"] = args.get("ep") or 1
        else:
            args["attn_tp"] = tp
            args["ep"] = tp * dp if args.get("enable_ep") else 1
        args["world"] = tp * (args.get("pp") or 1)
        args["mlp_tp"] = _mlp_tp(self.engine, m, args)
        args["dtype_resolved"] = self._dtype(m, args)
        args["model"] = self.launch.model
        args["max_model_len_given"] = args.get("max_model_len") if "max_model_len" in self.launch.given else NOT_APPLICABLE
        return args

    def _dtype(self, m: dict[str, Any], args: dict[str, Any]) -> str | None:
        """The dtype the engine will run in: --dtype, or the checkpoint's under auto."""
        dtype = str(args.get("dtype") or "auto")
        if dtype != "auto":
            return {"half": "float16", "bf16": "bfloat16", "float": "float32"}.get(dtype, dtype)
        stored = m.get("dtype")
        if stored == "float32":
            return "float16"
        if stored == "bfloat16" and self.gpu is not None and self.gpu.capability and self.gpu.capability_int < 80:
            # vLLM from 0.9 falls back to float16 under --dtype auto on GPUs without bf16
            if self.engine == "vllm" and (self.version is None or self.version >= Version("0.9")):
                return "float16"
        return stored

    def _gpu(self) -> dict[str, Any]:
        if self.gpu is None:
            return {}
        g = self.gpu
        return {"name": g.name, "memory_gib": g.memory_gib, "total_gib": f"{g.memory_gib:.2f} GiB",
                "capability": g.capability or None, "capability_int": g.capability_int if g.capability else None,
                "count": g.count, "free_gib": g.free_gib,
                "free_text": f"{(g.free_gib if g.free_gib is not None else g.memory_gib):.2f} GiB"}

    def _engine(self, m: dict[str, Any], args: dict[str, Any], gpu: dict[str, Any]) -> dict[str, Any]:
        transformers_types = registries.transformers_model_types()
        archs = registries.vllm_architectures() if self.engine == "vllm" else registries.sglang_architectures()
        known_archs = None
        if archs is not None:
            # both engines fall back to their Transformers backend for a model type transformers knows
            fallback = transformers_types is not None and m.get("model_type") in transformers_types
            known_archs = set(archs) | (set(m["archs"]) if fallback else set())
        engine: dict[str, Any] = {"name": self.engine, "version": str(self.version) if self.version else None,
                                  "version_source": self.version_source, "known_archs": known_archs,
                                  "transformers_types": transformers_types}
        method = args.get("quantization") or (m["quant_method"] if m["quant_method"] is not NOT_APPLICABLE else None)
        engine["quant_method"] = method or NOT_APPLICABLE
        engine["quant_min_capability"] = _min_capability(method, self.version) if method else NOT_APPLICABLE
        if self.engine == "sglang":
            engine["fp8_min_capability"] = 89 if method and "fp8" in method else NOT_APPLICABLE
        marlin = method in ("gptq", "awq", "gptq_marlin", "awq_marlin") and args.get("quantization") not in ("gptq", "awq")
        if marlin and gpu.get("capability_int") is not None and gpu["capability_int"] < 80:
            marlin = False
        engine["marlin"] = marlin
        group = m.get("group_size") if isinstance(m.get("group_size"), int) and m["group_size"] > 0 else None
        engine["marlin_intermediate"] = m["intermediate"] if marlin else NOT_APPLICABLE
        engine["grouped_intermediate"] = m["intermediate"] if group and not marlin and method in (
            "gptq", "awq", "bitsandbytes") else NOT_APPLICABLE
        vision_dp = args.get("mm_encoder_tp_mode") == "data" or args.get("mm_enable_dp_encoder")
        engine["vision_heads_sharded"] = NOT_APPLICABLE if vision_dp else m["vision_heads"]
        engine["derived_max_len"] = _derived_limit(m, args, self.env)
        vocab = m.get("vocab")   # VocabParallelEmbedding pads to a multiple of 64, then divides by TP
        engine["vocab_padded"] = -(-vocab // 64) * 64 if isinstance(vocab, int) and vocab > 0 else NOT_APPLICABLE
        forced = (args.get("attention_backend") or self.env.get("VLLM_ATTENTION_BACKEND") or "").upper() or None
        engine["forced_backend"] = forced
        engine["forced_backend_class"] = BACKEND_CLASS.get(forced or "", NOT_APPLICABLE)
        sizes = BACKEND_HEAD_SIZES.get(forced or "")
        engine["forced_backend_head_sizes"] = list(sizes) if sizes else NOT_APPLICABLE
        engine["forced_backend_sizes_text"] = str(list(sizes)) if sizes else NOT_APPLICABLE
        return engine

    def _host(self, args: dict[str, Any], plan: dict[str, Any]) -> dict[str, Any]:
        host: dict[str, Any] = {"allow_long_max_model_len": self.env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN") in ("1", "true")}
        if not self.check_host:
            return host
        world = args.get("world") or 1
        try:
            stat = os.statvfs("/dev/shm")
            host["shm_free_bytes"] = stat.f_bavail * stat.f_frsize
            host["shm_needed_bytes"] = SHM_PER_RANK * world if world > 1 else NOT_APPLICABLE
        except OSError:
            pass
        from enrich.versions import installed_version
        host["nccl_version"] = installed_version("nvidia-nccl-cu12") or installed_version("nvidia-nccl-cu13") or "(version unknown)"
        port = args.get("port")
        if isinstance(port, int) and self.check_port:
            address = args.get("host") or "0.0.0.0"
            # vLLM sets SO_REUSEPORT from 0.7 (create_server_socket): a holder that set it too does not block it
            reuse_port = self.engine == "vllm" and (self.version is None or self.version >= Version("0.7"))
            reason = _port_busy(address, port, reuse_port)
            host["bind_host"], host["port"] = address, port
            host["port_busy"] = 1 if reason else NOT_APPLICABLE
            host["port_error"] = reason or NOT_APPLICABLE
        host.update(_host_ram(self.model, plan, world))
        return host


def _host_ram(model: Model, plan: dict[str, Any], world: int) -> dict[str, Any]:
    """Host memory for loading: the checkpoint's bytes once for safetensors (ranks map the same
    files, the page cache is shared), once per rank for pickled checkpoints (each rank unpickles
    whole files), against /proc/meminfo MemAvailable."""
    available = _mem_available()
    total = plan.get("weights_total_gib")
    if available is None or total is None:
        return {}
    pickled = not any(model.path.glob("*.safetensors")) and any(
        p.suffix in (".bin", ".pt", ".pth") for p in model.path.glob("*.*"))
    copies = world if pickled else 1
    return {"ram_available_bytes": available, "ram_needed_bytes": int(total * 2**30) * copies,
            "ram_copies": copies, "ram_available_gib": f"{available / 2**30:.1f} GiB",
            "ram_needed_gib": f"{total * copies:.1f} GiB" + (f" ({copies} ranks, pickled checkpoint)" if copies > 1 else "")}


def _mem_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _mlp_tp(engine: str, m: dict[str, Any], args: dict[str, Any]) -> int:
    """The ranks one MLP's width is split over: the TP size, except for a model whose every MLP is
    an expert layer under expert parallelism (sglang: TP / EP per expert; vLLM: whole experts)."""
    tp = args.get("tp") or 1
    experts_only = isinstance(m.get("experts"), int) and m.get("moe_intermediate") == m.get("intermediate")
    if not experts_only:
        return tp
    if engine == "sglang":
        ep = args.get("ep") or 1
        return tp // ep if ep > 1 and tp % ep == 0 else tp
    return 1 if args.get("enable_ep") else tp


def _min_capability(method: str, version: Version | None) -> Any:
    for upto, cap in QUANT_MIN_CAPABILITY.get(method, ()):
        if upto is None or (version is not None and version < upto):
            return cap
    return NOT_APPLICABLE


def _derived_limit(m: dict[str, Any], args: dict[str, Any], env: dict[str, str]) -> Any:
    """The longest --max-model-len vLLM accepts, or NOT_APPLICABLE when it will not check."""
    if env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "").lower() in ("1", "true"):
        return NOT_APPLICABLE
    return m.get("max_len")


def _rule_views(plan: dict[str, Any]) -> None:
    """Figures some rules compare, each present only when it means something."""
    high = plan.get("kv_available_high_bytes")
    if high is not None:
        plan["kv_room_high_bytes"] = high if high > 0 else NOT_APPLICABLE   # a KV budget to compare with
        plan["kv_room_low_bytes"] = plan["kv_available_low_bytes"] if high > 0 else NOT_APPLICABLE
    if "weights_per_gpu_gib" in plan:
        plan["weights_asked_text"] = f"{plan['weights_per_gpu_gib']:.2f} GiB (its share of the weights)"


def _port_busy(host: str, port: int, reuse_port: bool = False) -> str | None:
    """The bind error the server would get, with the socket options it sets (SO_REUSEADDR: a port
    in TIME_WAIT is free)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port and hasattr(socket, "SO_REUSEPORT"):
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            probe.bind(("" if host in ("0.0.0.0", "::") else host, port))
        except OSError as exc:
            return f"[Errno {exc.errno}] {exc.strerror}" if exc.errno else str(exc)
    return None


def engine_version(engine: str, given: str | None) -> tuple[Version | None, str]:
    from enrich.versions import installed_version
    for text, source in ((given, "given"), (installed_version(engine), "installed"), (LATEST[engine], "assumed latest")):
        if text:
            try:
                return Version(text), source
            except InvalidVersion:
                continue
    return None, "unknown"
