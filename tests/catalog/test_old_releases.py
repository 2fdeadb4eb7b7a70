"""Entries whose wording or raise sites were widened for older engine releases: verify passes in
the old release itself (read from the release cache; skipped when it is not there), and the old
release's message is recognised by the entry."""

import os
from pathlib import Path

import pytest

from enrich.catalog import get_catalog
from enrich.catalog.releases import ReleaseError, release
from enrich.catalog.tools import verify

ROOT = Path(__file__).resolve().parents[2]

# (entry, distribution, old release, the message that release raises, its raise site there, a piece
# of its source text)
WIDENED = [
    ("mlx-lm/tokenizer-json-invalid", "mlx-lm", "0.24.0",
     "Failed to parse tokenizer.json: line 1 column 1 (char 0)", "mlx_lm.tokenizer_utils:load_tokenizer",
     "Failed to parse tokenizer.json"),
    ("vllm/worker-proc-init-failed", "vllm", "0.7.3",
     "WorkerProc failed to start.", "vllm.v1.executor.multiproc_executor:WorkerProc.wait_for_startup",
     "WorkerProc failed to start."),
    ("sglang/not-enough-memory", "sglang", "0.5.8",
     "Not enough memory. Please try to increase --mem-fraction-static. "
     "Current value: self.server_args.mem_fraction_static=0.5",
     "sglang.srt.model_executor.model_runner_kv_cache_mixin:ModelRunnerKVCacheMixin.init_memory_pool",
     "Current value: "),
    ("sglang/kv-scales-unsupported-model", "sglang", "0.4.6",
     "('Using FP8 KV cache and scaling factors provided but model %s does not support loading scaling factors.', "
     "<class 'sglang.srt.models.llama.LlamaForCausalLM'>)",
     "sglang.srt.model_executor.model_runner:ModelRunner.load_model",
     "Using FP8 KV cache and scaling factors provided but "),
    ("sglang/attn-tp-kv-replication", "sglang", "0.4.6", "", "sglang.srt.models.llama:LlamaAttention.__init__", None),
    ("vllm/kv-cache-max-seq-len", "vllm", "0.7.0",
     "To serve at least one request with the models's max seq len (131072), (16.00 GB KV cache is needed, which is "
     "larger than the available KV cache memory (9.38 GB). Try increasing `gpu_memory_utilization` or decreasing "
     "`max_model_len` when initializing the engine.",
     "vllm.v1.core.kv_cache_utils:check_enough_kv_cache_memory", "GB). Try"),
    ("vllm/quantization-capability", "vllm", "0.8.3",
     "('Quantization scheme is not supported for ', 'the current GPU. Required capability: ', "
     "'90. Current capability: 89.')",
     "vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors:"
     "CompressedTensorsConfig._check_scheme_supported",
     "the current GPU. Required capability: "),
    ("vllm/no-valid-attention-backend", "vllm", "0.11.1",
     "No valid attention backend found for cuda with head_size: 576, dtype: torch.bfloat16, kv_cache_dtype: fp8, "
     "block_size: 64, use_mla: True, has_sink: False, use_sparse: True. Reasons: {FLASHMLA_SPARSE: [compute "
     "capability not supported], TRITON_MLA: [kv_cache_dtype not supported, sparse not supported]}.",
     "vllm.platforms.cuda:CudaPlatformBase.get_attn_backend_cls", "kv_cache_dtype: "),
    ("vllm/engine-core-init-failed", "vllm", "0.8.3",
     "EngineCore_0 initialization failed. See root cause above.",
     "vllm.v1.utils:BackgroundProcHandle.wait_for_startup", "initialization failed. "),
    ("vllm/head-size-unsupported", "vllm", "0.11.0",
     "Head size 16 is not supported by TritonAttention.Head sizes need to be larger or equal 32 for this backend. "
     "Set VLLM_ATTENTION_BACKEND=FLEX_ATTENTION to use FlexAttention backend which supports all head sizes.",
     "vllm.v1.attention.backends.triton_attn:TritonAttentionBackend.validate_head_size",
     "Head sizes need to be larger or equal"),
    ("vllm/pp-unsupported-model", "vllm", "0.6.2",
     "Pipeline parallelism is only supported for the following  architectures: ['AquilaForCausalLM', 'AquilaModel', "
     "'DeepseekV2ForCausalLM', 'GPT2LMHeadModel', 'InternLM2ForCausalLM', 'InternLMForCausalLM', 'InternVLChatModel', "
     "'JAISLMHeadModel', 'LlamaForCausalLM', 'LLaMAForCausalLM', 'MistralForCausalLM', 'MixtralForCausalLM', "
     "'NemotronForCausalLM', 'Phi3ForCausalLM', 'Qwen2ForCausalLM', 'Qwen2MoeForCausalLM', 'QWenLMHeadModel', "
     "'Qwen2VLForConditionalGeneration'].",
     "vllm.config:ModelConfig.verify_with_parallel_config", "Pipeline parallelism is only supported for the following "),
    ("vllm/head-size-unsupported", "vllm", "0.3.3",
     "head_size (100) is not supported. Supported head sizes: [64, 80, 96, 128].",
     "vllm.model_executor.layers.attention:PagedAttention.__init__", "Supported head sizes: "),
]


@pytest.fixture(autouse=True)
def release_cache(monkeypatch):
    own = os.environ.get("ENRICH_RELEASE_CACHE", str(ROOT / ".cache" / "releases"))
    monkeypatch.setenv("ENRICH_RELEASE_CACHE", os.pathsep.join([own, str(ROOT / ".cache")]))


def _cached(distribution: str, version: str):
    try:
        return release(distribution, version, fetch=False)
    except ReleaseError:
        pytest.skip(f"{distribution} {version} is not in the release cache")


IDS = [w[0] for w in WIDENED]


@pytest.mark.parametrize("entry_id, distribution, version, message, site, text", WIDENED, ids=IDS)
def test_the_widened_entry_holds_in_the_old_release(entry_id, distribution, version, message, site, text):
    entry = get_catalog().entries[entry_id]
    old = _cached(distribution, version)
    assert verify.in_range(entry, version)
    problems, unchecked = verify.verify_entry(entry, old)
    assert [p.missing for p in problems] == [] and unchecked == []
    assert verify.site_exists(site, verify.corpus_of(old))
    if text is not None:
        assert verify.corpus_of(old).has_text(text)


@pytest.mark.parametrize("entry_id, distribution, version, message, site, text", WIDENED, ids=IDS)
def test_the_old_sample_is_in_the_entry(entry_id, distribution, version, message, site, text):
    entry = get_catalog().entries[entry_id]
    assert any(s.message == message and s.site == site and f"{distribution} {version}" in s.origin
               for s in entry.samples)
    if message:
        assert entry.message.search(message)


def test_an_old_bare_assert_counts_as_its_raise_line():
    """sglang 0.4.6 has no "attention TP must ..." text; its models assert without a message."""
    entry = get_catalog().entries["sglang/attn-tp-kv-replication"]
    old = _cached("sglang", "0.4.6")
    assert verify.check_message(entry, [verify.corpus_of(old)])       # the text is not there
    assert verify.source_line_present(entry, old)                      # the bare assert is


def test_a_narrowed_entry_is_not_claimed_for_releases_without_its_check():
    catalog = get_catalog()
    for entry_id, version in [("sglang/swa-pool-too-small", "0.4.6"), ("sglang/weights-leave-no-kv-cache", "0.5.2"),
                              ("sglang/scheduler-died-init", "0.5.2"), ("sglang/sgl-kernel-load-failed", "0.5.2")]:
        assert not verify.in_range(catalog.entries[entry_id], version), entry_id
    assert verify.releases_for(catalog.entries["sglang/swa-pool-too-small"], [("sglang", "0.4.6")], True) in (
        [], [("sglang", "0.5.23")])


def test_narrowed_vllm_entries_are_not_claimed_for_releases_without_their_check():
    catalog = get_catalog()
    for entry_id, version in [("vllm/startup-free-memory", "0.9.0.1"),
                              ("vllm/head-size-unsupported", "0.18.0"), ("vllm/attention-backend-invalid", "0.11.0"),
                              ("vllm/no-valid-attention-backend", "0.11.0"), ("vllm/fp8-block-shape-tp", "0.6.5"),
                              ("vllm/fp8-kv-backend-unsupported", "0.7.3"), ("vllm/kv-cache-scale-not-scalar", "0.22.1"),
                              ("vllm/external-weights-exceed-budget", "0.31.0")]:
        assert not verify.in_range(catalog.entries[entry_id], version), entry_id
    for entry_id, version in [("vllm/engine-dead", "0.6.5"), ("vllm/startup-free-memory", "0.9.1"),
                              ("vllm/head-size-unsupported", "0.17.1"), ("vllm/worker-proc-init-failed", "0.6.5"),
                              ("vllm/engine-core-init-failed", "0.6.5"), ("vllm/kv-cache-scale-not-scalar", "0.23.0"),
                              ("vllm/external-weights-exceed-budget", "0.32.0")]:
        assert verify.in_range(catalog.entries[entry_id], version), entry_id
