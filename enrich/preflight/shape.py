"""The model's shape in the terms the rules use, whatever the config family calls it.

Values that do not apply to this model (KV heads of an MLA model, experts of a dense one) are
``NOT_APPLICABLE``: a rule over them is skipped quietly, while a rule over a value that is merely
unknown (None) is reported as not checked.
"""

from __future__ import annotations

from typing import Any

from enrich.preflight.model import TORCH_DTYPE_BYTES, Model


class _NotApplicable:
    def __repr__(self) -> str:
        return "not applicable"


NOT_APPLICABLE = _NotApplicable()

# vLLM's keys for the model's own maximum length, in its order (config/__init__.py _get_and_verify_max_len)
MAX_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")


def _first(config: dict, *keys: str) -> Any:
    return next((config[k] for k in keys if config.get(k) is not None), None)


def derived_max_len(text: dict, tokenizer_max: int | None) -> tuple[int | None, str | None]:
    """The longest context vLLM derives from config.json (and tokenizer_config.json), and the key it names."""
    found = [(text[k], k) for k in MAX_LEN_KEYS if isinstance(text.get(k), (int, float)) and not isinstance(text.get(k), bool)]
    if not found:
        return None, None
    length, key = min(found, key=lambda pair: pair[0])
    if isinstance(text.get("model_max_length"), (int, float)):
        length, key = text["model_max_length"], "model_max_length"
    if tokenizer_max:
        length = min(length, tokenizer_max)
    rope = text.get("rope_scaling") or {}
    rope_type = rope.get("rope_type") or rope.get("type")
    if rope and "gemma3" not in str(text.get("model_type")) and rope_type not in ("su", "longrope", "llama3", None, "default"):
        if rope_type == "yarn" and rope.get("original_max_position_embeddings"):
            length = rope["original_max_position_embeddings"]
        length = length * float(rope.get("factor", 1.0))
    return (int(length) if float(length).is_integer() else length), key


def shape(model: Model) -> dict[str, Any]:
    """The ``model.*`` facts."""
    text, vision = model.text, model.vision or {}
    heads = _first(text, "num_attention_heads", "n_head", "num_heads", "n_heads")
    mla = text.get("kv_lora_rank") is not None
    kv_heads = _first(text, "num_key_value_heads", "multi_query_group_num", "n_kv_heads", "num_kv_heads")
    if kv_heads is None and heads is not None and not text.get("multi_query"):
        kv_heads = heads
    hidden = _first(text, "hidden_size", "n_embd", "d_model", "dim")
    head_dim = _first(text, "head_dim")
    if head_dim is None and hidden and heads:
        head_dim = hidden // heads
    experts = _first(text, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
    quant = text.get("quantization_config") or {}
    quant_method = str(quant.get("quant_method", "")).lower() or None
    dtype = str(_first(model.config, "torch_dtype", "dtype") or _first(text, "torch_dtype", "dtype") or "") or None
    max_len, max_len_key = derived_max_len(text, model.tokenizer_max_length)
    archs = model.config.get("architectures") or []
    layers = _first(text, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    return {
        "archs": list(archs) if isinstance(archs, list) else [str(archs)],
        "arch": archs[0] if isinstance(archs, list) and archs else None,
        "model_type": model.config.get("model_type"),
        "text_model_type": text.get("model_type"),
        "auto_map": bool(model.config.get("auto_map")),
        "model_type_builtin": NOT_APPLICABLE if model.config.get("auto_map") else model.config.get("model_type"),
        "heads": heads,
        "kv_heads": NOT_APPLICABLE if mla else kv_heads,
        "head_dim": head_dim,
        "attention_head_size": (text["kv_lora_rank"] + text.get("qk_rope_head_dim", 64)) if mla else head_dim,
        "mla": mla,
        "kv_lora_rank": text.get("kv_lora_rank"),
        "qk_rope_head_dim": text.get("qk_rope_head_dim"),
        "layers": layers,
        "hidden": hidden,
        "intermediate": _first(text, "intermediate_size", "ffn_hidden_size", "n_inner"),
        "moe_intermediate": _first(text, "moe_intermediate_size", "expert_intermediate_size")
                            or (_first(text, "intermediate_size") if experts else None),
        "experts": experts if experts else NOT_APPLICABLE,
        "experts_per_token": _first(text, "num_experts_per_tok", "moe_topk", "num_experts_per_token"),
        "vocab": _first(text, "vocab_size", "padded_vocab_size"),
        "vision_heads": _first(vision, "num_attention_heads", "num_heads", "n_heads") if vision else NOT_APPLICABLE,
        "vision_hidden": _first(vision, "hidden_size", "embed_dim", "width") if vision else NOT_APPLICABLE,
        "quant_method": quant_method or NOT_APPLICABLE,
        "quant_bits": quant.get("bits") or quant.get("w_bit"),
        "group_size": (quant.get("group_size") or quant.get("q_group_size")) if quant else NOT_APPLICABLE,
        "quant_sym": quant.get("sym", True),
        "dtype": dtype.replace("torch.", "") if dtype else None,
        "dtype_bytes": TORCH_DTYPE_BYTES.get(dtype.replace("torch.", "")) if dtype else None,
        "max_len": max_len,
        "max_len_key": max_len_key,
        "sliding_window": text.get("sliding_window"),
        "moe_every": _first(text, "interleave_moe_layer_step", "moe_layer_freq") or 1,
        "dense_layers": _first(text, "first_k_dense_replace") or 0,
        "tied_embeddings": text.get("tie_word_embeddings") is True or model.config.get("tie_word_embeddings") is True,
        "dense_intermediate": _first(text, "intermediate_size_mlp", "intermediate_size"),
        "shared_experts": _first(text, "n_shared_experts", "num_shared_experts"),
        "weight_bytes": model.weight_bytes,
        "weight_source": model.weight_source,
    }


def _parameters(m: dict[str, Any]) -> tuple[int, int, int] | None:
    """(embedding and output parameters, other parameters, of which in routed experts), from the shape."""
    hidden, layers, heads, vocab = m["hidden"], m["layers"], m["heads"], m["vocab"]
    if not all(isinstance(v, int) and v > 0 for v in (hidden, layers, heads, vocab)):
        return None
    head_dim = m["head_dim"] or hidden // heads
    kv = m["kv_heads"] if isinstance(m["kv_heads"], int) else heads
    attention = hidden * head_dim * (2 * heads + 2 * kv)
    inter = m["intermediate"] or 4 * hidden
    dense = 3 * hidden * (m.get("dense_intermediate") or inter)
    routed = 0
    if isinstance(m["experts"], int):
        every = m.get("moe_every") if isinstance(m.get("moe_every"), int) and m["moe_every"] > 0 else 1
        moe_layers = (layers - (m.get("dense_layers") or 0)) // every
        expert = 3 * hidden * (m["moe_intermediate"] or inter)
        shared = m.get("shared_experts") if isinstance(m.get("shared_experts"), int) else 1
        routed = moe_layers * expert * m["experts"]
        mlp_total = routed + moe_layers * expert * shared + (layers - moe_layers) * dense
    else:
        mlp_total = layers * dense
    embeddings = (1 if m.get("tied_embeddings") else 2) * vocab * hidden
    return embeddings, layers * attention + mlp_total, routed


def _bytes_per_parameter(m: dict[str, Any]) -> tuple[float, float]:
    """(embeddings, the rest): quantized checkpoints keep embeddings and lm_head in 16 bits; 4-bit
    group quantization adds a 16-bit scale and a 4-bit zero point per group."""
    plain = m["dtype_bytes"] or 2
    if "fp8" in str(m["quant_method"]):
        return 2, 1
    bits = m["quant_bits"] if isinstance(m["quant_bits"], int) else None
    if not bits:
        return plain, plain
    group = m.get("group_size") if isinstance(m.get("group_size"), int) and m["group_size"] > 0 else 128
    return 2, bits / 8 + 2.5 / group


def estimate_weight_bytes(m: dict[str, Any]) -> int | None:
    """Parameter bytes from the shape alone (no index, no safetensors): dense, MoE and MLA layouts."""
    counted = _parameters(m)
    if counted is None:
        return None
    embeddings, rest, _routed = counted
    embed_bytes, rest_bytes = _bytes_per_parameter(m)
    return int(embeddings * embed_bytes + rest * rest_bytes)


def routed_expert_share(m: dict[str, Any]) -> float:
    """The share of the weight bytes in routed experts (split over EP ranks, not TP ranks)."""
    counted = _parameters(m)
    if counted is None or not counted[2]:
        return 0.0
    embeddings, rest, routed = counted
    embed_bytes, rest_bytes = _bytes_per_parameter(m)
    return routed * rest_bytes / (embeddings * embed_bytes + rest * rest_bytes)
