"""The memory plan per GPU: weights, KV bytes per token, activation band, what the KV cache gets.

vLLM (V1, ``gpu_worker.determine_available_memory``): KV = total x gpu_memory_utilization - weights
- activation peak of the profiling run - memory outside torch (NCCL, cuBLAS; CUDA graphs from 0.11).
The peak is not one constant: it grows with the tokens of the profiling batch, whose default changed
between releases (V0 profiled max(max_model_len, 2048) tokens unless chunked prefill was on, which it
was by default above 32K context; V1 profiles max_num_batched_tokens: 8192 on GPUs of 70 GiB or more
other than A100, else 2048, for the API server). So the plan gives a band.
sglang: the static pool is mem_fraction_static x total; KV = pool - weights. The default fraction
follows its own formula over GPU memory, chunked prefill size and TP x PP (srt/arg_groups/memory_hook.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from enrich.preflight.shape import estimate_weight_bytes, routed_expert_share

GIB = 2**30
BLOCK = 16


@dataclass(frozen=True)
class ActivationModel:
    """The profiling run's activation peak: the larger of the widest MLP step over the batch
    (``per_token`` x the formula of ``mlp_bytes``) and the sampler's copies of the fp32 logits of
    every sequence (``sampler_copies`` x seqs x vocab x 4); the band is the fit's spread."""
    per_token: float
    sampler_copies: float
    spread: tuple[float, float]
    source: str


# Fitted by benchmarks/preflight/calibrate.py to vLLM's own profiling prints
# (benchmarks/preflight/profiles.toml); tests/preflight/test_calibration.py re-fits and compares.
# Before 0.6.5 the profiler's peak did not include the sampler's logits (vLLM PR 10511 reworked it).
# V1 (0.8 on) profiles the same two steps; no V1 print was collected, so its band is wider.
ACTIVATION = {
    "v0-old-profiler": ActivationModel(0.93, 0.0, (0.9, 1.1), "fitted: 2 prints of vLLM 0.6.4"),
    "v0": ActivationModel(0.93, 10.0, (0.9, 1.1), "fitted: 4 prints of vLLM 0.6.5-0.7.3"),
    "v1": ActivationModel(0.93, 10.0, (0.6, 1.6), "assumed from V0 (no V1 print fitted)"),
}
NON_TORCH_GIB = {1: (0.03, 0.35, 1.8), 2: (0.2, 1.9, 3.6)}   # (low, central, high): one GPU / TP > 1
GRAPHS_GIB = (0.0, 0.5, 1.5)   # CUDA graphs, counted in the budget from vLLM 0.11 unless --enforce-eager


def kv_bytes_per_token(m: dict[str, Any], args: dict[str, Any], dtype_bytes: float) -> int | None:
    """KV bytes per token on one GPU (its share of the layers and KV heads)."""
    layers = m.get("layers")
    if not isinstance(layers, int):
        return None
    layers = -(-layers // max(1, args.get("pp") or 1))
    if m.get("mla"):
        return int(layers * (m["kv_lora_rank"] + (m.get("qk_rope_head_dim") or 64)) * dtype_bytes)
    kv, head_dim, tp = m.get("kv_heads"), m.get("head_dim"), args.get("attn_tp") or 1
    if not isinstance(kv, int) or not isinstance(head_dim, int) or kv <= 0:
        return None
    kv_local = kv // tp if tp <= kv else 1     # past the KV-head count each rank holds one replica
    return int(layers * 2 * max(kv_local, 1) * head_dim * dtype_bytes)


def kv_dtype_bytes(m: dict[str, Any], args: dict[str, Any]) -> float:
    if str(args.get("kv_cache_dtype") or "auto").startswith("fp8"):
        return 1
    return compute_dtype_bytes(m, args)


def compute_dtype_bytes(m: dict[str, Any], args: dict[str, Any]) -> float:
    if str(args.get("dtype") or "auto") in ("float32", "float"):
        return 4
    return 2   # bf16/fp16; fp32 checkpoints are served in 16 bits under --dtype auto


def _activation_tokens(engine: str, version: Version | None, args: dict[str, Any], gpu_gib: float | None,
                       gpu_name: str, max_len: int | None) -> int:
    if engine == "sglang":
        return max(args.get("chunked_prefill_size") or (8192 if (gpu_gib or 0) > 60 else 2048), 2048)
    if args.get("max_num_batched_tokens"):
        return args["max_num_batched_tokens"]
    max_len = max_len or 2048
    if version is not None and version < Version("0.8"):   # V0: chunked prefill on by default above 32K
        chunk = 512 if version < Version("0.7") else 2048
        return chunk if max_len > 32768 else max(max_len, 2048)
    big = (gpu_gib or 0) >= 70 and "a100" not in gpu_name.lower()
    return 8192 if big else 2048


def activation_model(version: Version | None) -> ActivationModel:
    if version is not None and version < Version("0.6.5"):
        return ACTIVATION["v0-old-profiler"]
    return ACTIVATION["v0" if version is not None and version < Version("0.8") else "v1"]


def mlp_bytes(m: dict[str, Any], tokens: int, tp: int) -> float | None:
    """Bytes of the widest MLP step over a batch: bf16 hidden states and the gate/up output."""
    hidden = m.get("hidden")
    if not isinstance(hidden, int):
        return None
    inter = m.get("intermediate") if isinstance(m.get("intermediate"), int) else 4 * hidden
    if isinstance(m.get("experts"), int):
        inter = (m.get("moe_intermediate") or inter) * (m.get("experts_per_token") or 2)
    return tokens * 2 * (4 * hidden + 3 * inter / tp)


def activation_gib(m: dict[str, Any], tokens: int, tp: int, seqs: int, model: ActivationModel) -> float | None:
    """The central activation peak of the profiling run, in GiB."""
    mlp, vocab = mlp_bytes(m, tokens, tp), m.get("vocab")
    if mlp is None or not isinstance(vocab, int):
        return None
    return max(model.per_token * mlp, model.sampler_copies * seqs * vocab * 4) / GIB


def memory_plan(engine: str, version: Version | None, m: dict[str, Any], args: dict[str, Any],
                gpu: Any | None) -> dict[str, Any]:
    """The plan as plain numbers (bytes and GiB); missing inputs leave their figures out."""
    plan: dict[str, Any] = {}
    weights = m.get("weight_bytes")
    source = m.get("weight_source") or ""
    if weights is None:
        weights, source = estimate_weight_bytes(m), "estimate from config.json"
    world = max(1, (args.get("tp") or 1) * (args.get("pp") or 1))
    if weights is not None:
        # routed experts are split over the expert-parallel ranks, the rest over TP (x PP)
        routed, ep = routed_expert_share(m), max(1, args.get("ep") or 1)
        share = (1 - routed) / world + routed / (max(ep, args.get("tp") or 1) * (args.get("pp") or 1))
        plan["weights_total_gib"] = round(weights / GIB, 2)
        plan["weights_per_gpu_bytes"] = int(weights * share)
        plan["weights_per_gpu_gib"] = round(weights * share / GIB, 2)
        plan["weights_source"] = source
    dtype_bytes = kv_dtype_bytes(m, args)
    per_token = kv_bytes_per_token(m, args, dtype_bytes)
    max_len = args.get("max_model_len") or (m.get("max_len") if isinstance(m.get("max_len"), int) else None)
    if per_token:
        plan["kv_bytes_per_token_per_gpu"] = per_token
        if max_len:
            plan["max_model_len"] = max_len
            needed = -(-max_len // BLOCK) * BLOCK * per_token
            plan["kv_needed_bytes"] = needed
            plan["kv_needed_gib"] = f"{needed / GIB:.2f}"
    gpu_gib = getattr(gpu, "memory_gib", None)
    if not gpu_gib:
        return plan
    plan["gpu_total_gib"] = gpu_gib
    tp = args.get("tp") or 1
    if engine == "vllm":
        util = args.get("gpu_memory_utilization") or 0.9
        budget = gpu_gib * util
        plan["budget_gib"] = round(budget, 2)
        tokens = _activation_tokens(engine, version, args, gpu_gib, getattr(gpu, "name", ""), max_len)
        v1 = version is None or version >= Version("0.8")
        seqs = args.get("max_num_seqs") or (1024 if v1 and tokens >= 8192 else 256)
        model = activation_model(version)
        act = activation_gib(m, tokens, tp, seqs, model)
        if act is None:
            return plan
        graphs = GRAPHS_GIB if (version is None or version >= Version("0.11")) and not args.get("enforce_eager") else (0, 0, 0)
        non_torch = NON_TORCH_GIB[1 if (args.get("world") or tp) == 1 else 2]
        low = act * model.spread[0] + non_torch[0] + graphs[0]
        mid = act + non_torch[1] + graphs[1]
        high = act * model.spread[1] + non_torch[2] + graphs[2]
        plan["activation_tokens"] = tokens
        plan["activation_gib"] = round(act, 2)
        plan["activation_band_gib"] = [round(low, 2), round(high, 2)]
        plan["activation_source"] = model.source
    else:
        fraction = args.get("mem_fraction_static") or sglang_default_fraction(gpu_gib, args)
        plan["mem_fraction_static"] = fraction
        budget = gpu_gib * fraction
        plan["budget_gib"] = round(budget, 2)
        low = mid = high = 0.0
    if weights is None:
        return plan
    weights_gib = plan["weights_per_gpu_bytes"] / GIB
    kv_high, kv_low = budget - weights_gib - low, budget - weights_gib - high
    plan["kv_available_band_gib"] = [round(kv_low, 2), round(kv_high, 2)]
    central = budget - weights_gib - mid
    plan["kv_available_gib"] = f"{central:.2f}"
    plan["kv_available_bytes"] = int(central * GIB)
    plan["kv_available_high_bytes"] = int(kv_high * GIB)
    plan["kv_available_low_bytes"] = int(kv_low * GIB)
    plan["left_after_weights_gib"] = round(gpu_gib - weights_gib, 2)
    if per_token:
        fit = max(0, int(central * GIB) // (BLOCK * per_token) * BLOCK)
        plan["tokens_that_fit"] = fit
        plan["tokens_that_fit_band"] = [max(0, int(kv_low * GIB) // per_token), max(0, int(kv_high * GIB) // per_token)]
        plan["estimated_max_model_len"] = fit
    if engine == "sglang":
        plan["sglang_min_fraction"] = round(weights_gib / gpu_gib, 4)
        plan["sglang_suggested_fraction"] = round(weights_gib / gpu_gib + 0.001, 3)
    return plan


def sglang_default_fraction(gpu_gib: float, args: dict[str, Any]) -> float:
    """sglang's default --mem-fraction-static for this GPU and parallel layout (0.5.x formula)."""
    gpu_mb = gpu_gib * 1024
    tokens = max(args.get("chunked_prefill_size") or (8192 if gpu_gib > 60 else 2048), 2048)
    reserved = 512 + tokens * 1.5 + (args.get("tp") or 1) * (args.get("pp") or 1) / 8 * 1024 + 512
    if gpu_mb > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((gpu_mb - reserved) / gpu_mb, 3)

