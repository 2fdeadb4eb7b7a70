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
