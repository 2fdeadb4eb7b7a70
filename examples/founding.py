"""The founding errors and their siblings, raised by sglang's own code on this CPU.

Each scenario builds the smallest real input that makes sglang 0.5.23 fail the
way users hit it (tiny random models, no downloads) and lets the exception
leave. The demo (examples/demo.py) and the engine tests use the same scenarios.
Needs the ``sglang-cpu`` extra.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import tempfile
import traceback
from typing import Callable, Iterator

SCENARIOS: dict[str, Callable[[], None]] = {}
FOUNDING = ("mlx-head-counts", "gdn-head-config", "kv-scale-attribute", "attn-tp-kv-heads")


def scenario(fn: Callable[[], None]) -> Callable[[], None]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


# (a) MLX attention patching -------------------------------------------------------------

def tiny_mlx_llama(rename_heads: bool = True):
    """A random 2-layer mlx-lm llama whose attention names its head counts num_query_heads / num_kv_groups."""
    from mlx_lm.models.llama import Model, ModelArgs

    model = Model(ModelArgs(model_type="llama", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
                            num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=128))
    if rename_heads:
        for layer in model.model.layers:
            attn = layer.self_attn
            attn.num_query_heads, attn.num_kv_groups = attn.n_heads, attn.n_kv_heads
            del attn.n_heads, attn.n_kv_heads
    return model


@scenario
def mlx_head_counts():
    from sglang.srt.hardware_backend.mlx.kv_cache.attention_wrapper import MLXAttentionWrapper
    MLXAttentionWrapper(tiny_mlx_llama().model.layers[0].self_attn, 0)


@scenario
def mlx_patch_model():
    from sglang.srt.hardware_backend.mlx.kv_cache.model_patching import patch_model_attention
    patch_model_attention(tiny_mlx_llama())


@scenario
def mlx_scale():
    from sglang.srt.hardware_backend.mlx.kv_cache.attention_wrapper import MLXAttentionWrapper
    attn = tiny_mlx_llama(rename_heads=False).model.layers[0].self_attn
    attn.scale = None
    MLXAttentionWrapper(attn, 0)


# (b) GDN packed decode --------------------------------------------------------------------

def gdn_packed_decode(H: int = 3, HV: int = 4, K: int = 8, V: int = 8, qkv_dim: int | None = None,
                      batch: int = 2, ndim: int = 2):
    """Call the real launcher with CPU tensors; it validates them before any Triton launch."""
    import torch
    from sglang.kernels.ops.attention.fla.fused_recurrent import (
        fused_recurrent_gated_delta_rule_packed_decode)

    width = qkv_dim if qkv_dim is not None else 2 * H * K + HV * V
    mixed_qkv = torch.randn(batch, width) if ndim == 2 else torch.randn(batch, 1, width)
    fused_recurrent_gated_delta_rule_packed_decode(
        mixed_qkv=mixed_qkv, a=torch.randn(batch, HV), b=torch.randn(batch, HV),
        A_log=torch.randn(HV), dt_bias=torch.randn(HV), scale=K ** -0.5,
        initial_state=torch.zeros(4, HV, V, K), out=torch.empty(batch, 1, HV, V),
        ssm_state_indices=torch.arange(batch, dtype=torch.int32))


@scenario
def gdn_head_config():
    gdn_packed_decode(H=3, HV=4)


# (c) FP8 KV cache scales ------------------------------------------------------------------

@contextlib.contextmanager
def _scales_file(model_type: str, layers: int) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="enrich-demo-") as directory:
        path = os.path.join(directory, "kv_cache_scales.json")
        with open(path, "w") as f:
            json.dump({"model_type": model_type, "kv_cache": {"dtype": "float8_e4m3fn", "scaling_factor": {
                "0": {str(i): 0.5 for i in range(layers)}}}}, f)
        yield path


def _single_process_groups():
    """World-size-1 gloo groups, as a one-GPU launch has (the model's sampler needs a TP group)."""
    import torch.distributed as dist
    from sglang.srt.distributed.parallel_state import init_distributed_environment, initialize_model_parallel
    from sglang.srt.runtime_context import get_parallel

    if dist.is_initialized():
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    hook = sys.excepthook   # torch.distributed adds a "[rank0]:" excepthook; keep the one in place
    with get_parallel().override(tp_rank=0, pp_rank=0):
        init_distributed_environment(world_size=1, rank=0, local_rank=0, backend="gloo",
                                     distributed_init_method=f"tcp://127.0.0.1:{port}")
        initialize_model_parallel(backend="gloo")
    sys.excepthook = hook


@scenario
def kv_scale_attribute():
    from unittest import mock

    from torch import nn
    from transformers import HunYuanDenseV1Config

    import sglang.srt.models.hunyuan as hunyuan
    from sglang.srt.model_executor.model_runner_components.load_model_utils import load_kv_cache_scales
    from sglang.srt.runtime_context import get_context, get_parallel

    config = HunYuanDenseV1Config(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                                  num_key_value_heads=2, head_dim=16, num_hidden_layers=2, vocab_size=128,
                                  pad_token_id=0, bos_token_id=1, eos_token_id=2)
    with (_scales_file(config.model_type, config.num_hidden_layers) as path,
          get_context().override_server_args(device="cpu", quantization_param_path=path, kv_cache_dtype="fp8_e4m3")):
        _single_process_groups()
        with get_parallel().override(tp_rank=0, pp_rank=0):
            # sglang's rotary embedding cannot be built without CUDA; scale loading never uses it.
            with mock.patch.object(hunyuan, "get_rope", lambda *a, **k: nn.Identity()):
                model = hunyuan.HunYuanDenseV1ForCausalLM(config)
        load_kv_cache_scales(model=model, kv_cache_dtype="fp8_e4m3")


@scenario
def kv_scales_unsupported():
    from transformers import GPT2Config

    from sglang.srt.model_executor.model_runner_components.load_model_utils import load_kv_cache_scales
    from sglang.srt.models.gpt2 import GPT2LMHeadModel
    from sglang.srt.runtime_context import get_context, get_parallel

    config = GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=128, n_positions=64,
                        bos_token_id=1, eos_token_id=2)
    with (_scales_file(config.model_type, config.n_layer) as path,
          get_context().override_server_args(quantization_param_path=path, kv_cache_dtype="fp8_e4m3")):
        with get_parallel().override(tp_rank=0):
            model = GPT2LMHeadModel(config)
        load_kv_cache_scales(model=model, kv_cache_dtype="fp8_e4m3")


# (d) attention TP versus KV heads ---------------------------------------------------------

TEXT = dict(hidden_size=384, num_attention_heads=24, num_key_value_heads=12, head_dim=16,
            num_hidden_layers=1, layer_types=["full_attention"])


@scenario
def attn_tp_kv_heads(kv_heads: int = 12, attn_tp: int = 8):
    from sglang.srt.configs.interns2_mobius import InternS2MobiusTextConfig
    from sglang.srt.models.interns2_mobius import InternS2MobiusAttentionDecoderLayer
    from sglang.srt.runtime_context import get_parallel

    config = InternS2MobiusTextConfig(**{**TEXT, "num_key_value_heads": kv_heads})
    with get_parallel().override(attn_tp_size=attn_tp, attn_tp_rank=0):
        InternS2MobiusAttentionDecoderLayer(config, layer_id=0)


@scenario
def qwen3_next_bare_assert():
    from sglang.srt.configs.qwen3_next import Qwen3NextConfig
    from sglang.srt.models.qwen3_next import Qwen3HybridAttentionDecoderLayer
    from sglang.srt.runtime_context import get_parallel

    with get_parallel().override(attn_tp_size=8, attn_tp_rank=0):
        Qwen3HybridAttentionDecoderLayer(Qwen3NextConfig(**TEXT), layer_id=0)


@scenario
def llama_bare_assert():
    from transformers import LlamaConfig

    from sglang.srt.models.llama import LlamaAttention
    from sglang.srt.runtime_context import get_parallel

    config = LlamaConfig(hidden_size=384, num_attention_heads=24, num_key_value_heads=12)
    with get_parallel().override(tp_size=8, tp_rank=0):
        LlamaAttention(config, hidden_size=384, num_heads=24, num_kv_heads=12)


@scenario
def not_divisible():
    from sglang.srt.configs.qwen3_5 import Qwen3_5TextConfig
    from sglang.srt.models.qwen3_5 import Qwen3_5AttentionDecoderLayer
    from sglang.srt.runtime_context import get_parallel

    config = Qwen3_5TextConfig(**{**TEXT, "num_attention_heads": 32, "num_key_value_heads": 16,
                                   "full_attention_interval": 1})
    with get_parallel().override(attn_tp_size=16, attn_tp_rank=0, attn_dcp_size=6, pp_rank=0, pp_size=1):
        Qwen3_5AttentionDecoderLayer(config, layer_id=0)


def raise_scenario(name: str) -> BaseException:
    """Run one scenario and return what it raised (every scenario raises)."""
    try:
        SCENARIOS[name]()
    except Exception as exc:  # noqa: BLE001 - that is the point of a scenario
        return exc
    raise AssertionError(f"scenario {name} did not raise")


def _in_child(name: str) -> tuple[BaseException, str, dict]:
    """One scenario in this (spawned) process, with an OpenTelemetry SDK recording in memory
    when one is installed: the exception, its traceback as text, and what telemetry received."""
    exporter = reader = None
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    except ImportError:
        pass
    import enrich
    enrich.install()
    exc = raise_scenario(name)
    enrich.annotate(exc)    # a no-op when a wrapped entrypoint already did it
    telemetry: dict = {}
    if exporter is not None:
        events = [e for s in exporter.get_finished_spans() for e in s.events if "enrich.id" in e.attributes]
        if events:
            telemetry["span event"] = {k: v for k, v in events[0].attributes.items()
                                       if k.startswith(("error.", "enrich.")) and k != "enrich.fixes"}
        points = [(m.name, dict(p.attributes), p.value) for rm in reader.get_metrics_data().resource_metrics
                  for sm in rm.scope_metrics for m in sm.metrics if m.name == "enrich.exceptions"
                  for p in m.data.data_points]
        telemetry["counter"] = points
    return exc, "".join(traceback.format_exception(exc)), telemetry


def run_isolated(names: tuple[str, ...], processes: int = 2) -> list[tuple[BaseException, str, dict]]:
    """Each scenario in a fresh spawned process, as sglang runs model load in its scheduler
    processes: returns the pickled exception and its traceback as the child formatted it."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(processes, maxtasksperchild=1) as pool:
        return pool.map(_in_child, names, chunksize=1)
