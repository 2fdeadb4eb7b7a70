"""vLLM (V1 engine, 0.10 and later; checked against 0.34.0's source).

Activation: enrich registers ``plugin`` in vLLM's plugin group (``vllm.general_plugins``),
which vLLM loads in the API server, the engine core and every worker process. Ray workers
get it the same way, or through ``enrich run``.

Targets: the start-up path of the engine core and the GPU worker (configuration checks,
device init, model load, attention-backend selection, KV-cache sizing and allocation). The
engine core logs "EngineCore failed to start." with the exception it caught, and workers log
"WorkerProc hit an exception."; notes added on the way out are in those log lines.
"""

from enrich.activation.integration import Integration, Target

WORKER = "vllm.v1.worker.gpu_worker"

integration = Integration(
    name="vllm",
    distribution="vllm",
    versions=">=0.10",
    targets=(
        Target("config-parallel", "vllm.config.model", "ModelConfig.verify_with_parallel_config"),
        Target("engine-core", "vllm.v1.engine.core", "EngineCore.__init__"),
        Target("kv-cache-init", "vllm.v1.engine.core", "EngineCore._initialize_kv_caches"),
        Target("worker-init-device", WORKER, "Worker.init_device"),
        Target("worker-load-model", WORKER, "Worker.load_model"),
        Target("worker-available-memory", WORKER, "Worker.determine_available_memory"),
        Target("worker-kv-cache", WORKER, "Worker.initialize_from_config"),
        Target("model-loader", "vllm.model_executor.model_loader.base_loader", "BaseModelLoader.load_model"),
        Target("attention-backend", "vllm.v1.attention.selector", "get_attn_backend"),
    ),
)


def plugin() -> None:
    """vLLM's general-plugin hook: runs in every vLLM process."""
    import enrich
    enrich.install()
    from enrich.preflight import at_startup
    at_startup("vllm")   # once, in the launching process; ENRICH_PREFLIGHT=off|warn|block
