"""sglang (0.5.x).

Activation: enrich registers ``plugin`` in sglang's own plugin group
(``sglang.srt.plugins``), which sglang loads early in every process it starts
(server, schedulers, detokenizer, data-parallel controller), so installing the
package is enough.

Targets: startup entrypoints, by class method where possible (looked up at call
time). Per-step hot paths are not wrapped; the GDN packed-decode launcher is the
exception, as it runs per step only with CUDA graphs off (otherwise once, at
capture). Everything else is caught at the seam: ``get_exception_traceback`` is
what sglang's processes call inside their top-level ``except`` before logging the
traceback and sending SIGQUIT; enrichment and a telemetry flush happen there.
"""

import sys

from enrich.activation.integration import Integration, Target

MLX = "sglang.srt.hardware_backend.mlx"

# The top-level handlers that format the exception, log it and signal the parent to kill the tree.
DEATH_HANDLERS = ("run_scheduler_process", "run_data_parallel_controller_process", "run_detokenizer_process",
                  "run_multi_detokenizer_router_process", "print_exception_wrapper")

RANKS = ("tp_rank", "tp_size", "pp_rank", "pp_size", "dp_rank", "attn_tp_rank", "attn_tp_size", "attn_dp_rank")


def context() -> dict:
    """This process's place in the sglang deployment, as far as sglang has set it up."""
    from enrich.versions import installed_version
    attributes = {"enrich.engine.version": installed_version("sglang") or "unknown"}
    runtime = sys.modules.get("sglang.srt.runtime_context")   # never import the engine from here
    if runtime is not None:
        parallel = runtime.get_parallel()
        for name in RANKS:
            value = getattr(parallel, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                attributes[f"sglang.{name}"] = value
    return attributes


integration = Integration(
    name="sglang",
    context=context,
    distribution="sglang",
    versions=">=0.5,<0.6",
    targets=(
        Target("mlx-attention-wrapper", f"{MLX}.kv_cache.attention_wrapper", "MLXAttentionWrapper.__init__"),
        Target("mlx-attention-patching", f"{MLX}.kv_cache.model_patching", "patch_model_attention"),
        Target("mlx-model-runner", f"{MLX}.model_runner", "MlxModelRunner.__init__"),
        Target("gdn-packed-decode", "sglang.kernels.ops.attention.fla.fused_recurrent",
               "fused_recurrent_gated_delta_rule_packed_decode"),
        Target("model-load", "sglang.srt.model_executor.model_runner", "ModelRunner.load_model"),
        Target("model-loader", "sglang.srt.model_loader.loader", "DefaultModelLoader.load_model"),
        Target("kv-cache-scales", "sglang.srt.model_executor.model_runner_components.load_model_utils",
               "load_kv_cache_scales"),
        Target("exception-traceback", "sglang.utils", "get_exception_traceback", seam=True,
               fatal_in=DEATH_HANDLERS),
    ),
)


def plugin() -> None:
    """sglang's plugin hook: runs in every sglang process before the model loads."""
    import enrich
    enrich.install()
    from enrich.preflight import at_startup
    at_startup("sglang")   # once, in the launching process; ENRICH_PREFLIGHT=off|warn|block
