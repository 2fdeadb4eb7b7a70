"""sglang (0.5.x): startup entrypoints whose exceptions are enriched as they leave them.

Class methods where possible: they are looked up at call time, so modules
that imported the class earlier see the wrapper too. Per-step hot paths are
left alone; the GDN packed-decode launcher is the exception, as it runs per
step only when CUDA graphs are off (otherwise once, at graph capture).
"""

from enrich.integration import Integration, Target

MLX = "sglang.srt.hardware_backend.mlx"

integration = Integration(
    name="sglang",
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
    ),
)
