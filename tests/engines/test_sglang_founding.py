"""The four founding errors, raised by sglang 0.5.23's own code on CPU after enrich.install().

Each test checks the note's computed content and that the real message is one of the
entry's catalog samples (so "real run" samples stay true to the engine).
"""

import pytest

pytest.importorskip("sglang", reason="needs sglang (pip install --no-deps sglang==0.5.23)")
pytest.importorskip("torch")

import enrich  # noqa: E402
from enrich.catalog import get_catalog  # noqa: E402
from founding import gdn_packed_decode, raise_scenario, run_isolated  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def installed():
    handle = enrich.install()
    yield handle
    enrich.uninstall()


def note_of(exc: BaseException) -> str:
    notes = getattr(exc, "__notes__", [])
    assert len(notes) == 1, notes
    return notes[0]


def assert_sampled(exc: BaseException, entry_id: str) -> None:
    samples = [s.message for s in get_catalog().entries[entry_id].samples]
    assert str(exc) in samples, f"{str(exc)!r} is not a sample of {entry_id}"


# (a) MLX attention patching ---------------------------------------------------------------

def test_mlx_head_counts():
    pytest.importorskip("mlx_lm")
    exc = raise_scenario("mlx-head-counts")
    assert type(exc) is RuntimeError
    note = note_of(exc)
    assert note.startswith("[sglang/mlx-attention-head-counts] Attention has no attribute sglang reads")
    assert "num_query_heads=4, num_kv_groups=2" in note           # read from the live module
    assert "head_dim" not in note.splitlines()[0]
    assert exc._enrich["mechanism"] == "entrypoint:sglang.mlx-attention-wrapper"   # left the wrapped call with it
    assert_sampled(exc, "sglang/mlx-attention-head-counts")


def test_mlx_patch_model_attention():
    pytest.importorskip("mlx_lm")
    exc = raise_scenario("mlx-patch-model")
    assert type(exc) is ValueError
    note = note_of(exc)
    assert "`self_attn` (Attention) lacks a query-head count, a KV-head count; " \
           "it has num_query_heads=4, num_kv_groups=2" in note
    assert exc._enrich["mechanism"] == "entrypoint:sglang.mlx-attention-patching"
    assert_sampled(exc, "sglang/mlx-no-attention-layer")


def test_mlx_scale():
    pytest.importorskip("mlx_lm")
    exc = raise_scenario("mlx-scale")
    note = note_of(exc)
    assert note.startswith("[sglang/mlx-attention-scale] Attention offers no softmax scale")
    assert "head_dim=16" in note
    assert_sampled(exc, "sglang/mlx-attention-scale")


# (b) GDN packed decode ----------------------------------------------------------------------

def test_gdn_head_config():
    exc = raise_scenario("gdn-head-config")
    assert type(exc) is ValueError
    note = note_of(exc)
    assert note.splitlines()[0] == ("[sglang/gdn-head-config] mixed_qkv implies H=3 query/key heads, but the state "
                                    "has HV=4 value heads and 4 is not a multiple of 3.")
    assert "H must be one of 1, 2, 4" in note and "linear_num_key_heads / linear_num_value_heads" in note
    assert exc._enrich["values"]["K"] == "8" and exc._enrich["mechanism"] == "entrypoint:sglang.gdn-packed-decode"
    assert_sampled(exc, "sglang/gdn-head-config")


def test_gdn_head_config_lists_divisors_of_the_live_hv():
    with pytest.raises(ValueError) as info:
        gdn_packed_decode(H=5, HV=12)
    assert "H must be one of 1, 2, 3, 4, 6, 12" in note_of(info.value)


@pytest.mark.parametrize("kwargs, entry_id", [
    (dict(qkv_dim=33), "sglang/gdn-packed-qkv-width"),
    (dict(qkv_dim=100), "sglang/gdn-packed-qkv-width"),
    (dict(ndim=3), "sglang/gdn-packed-inputs"),
])
def test_gdn_sibling_errors(kwargs, entry_id):
    with pytest.raises(ValueError) as info:
        gdn_packed_decode(**kwargs)
    assert note_of(info.value).startswith(f"[{entry_id}]")
    assert_sampled(info.value, entry_id)


# (c) FP8 KV cache scales ----------------------------------------------------------------
# Run in spawned processes: they build process groups, which would change the parallel
# topology the other tests override.

@pytest.fixture(scope="module")
def kv_scale_errors():
    return {name: result[:2] for name, result in zip(("kv-scale-attribute", "kv-scales-unsupported"),
                                                     run_isolated(("kv-scale-attribute", "kv-scales-unsupported")))}


def test_kv_cache_scales(kv_scale_errors):
    exc, text = kv_scale_errors["kv-scale-attribute"]
    assert "RuntimeError: Self attention has no KV cache scaling factor attribute!\n" \
           "[sglang/kv-scale-attribute] HunYuanDenseV1ForCausalLM could not store KV cache scales: it looked " \
           "for `kv_scale` on HunYuanAttention" in text
    assert "--quantization-param-path" in text and "--kv-cache-dtype" in text
    assert exc._enrich["mechanism"] == "entrypoint:sglang.kv-cache-scales"
    assert note_of(exc) in text      # the pickled exception kept its note and record
    assert_sampled(exc, "sglang/kv-scale-attribute")


def test_kv_scales_unsupported_model(kv_scale_errors):
    exc, text = kv_scale_errors["kv-scales-unsupported"]
    assert note_of(exc).startswith("[sglang/kv-scales-unsupported-model] GPT2LMHeadModel has no load_kv_cache_scales")
    assert_sampled(exc, "sglang/kv-scales-unsupported-model")


# (d) attention TP versus KV heads -----------------------------------------------------------

def test_attention_tp_kv_heads():
    exc = raise_scenario("attn-tp-kv-heads")
    assert type(exc) is ValueError and exc.args == ("num_key_value_heads must be divisible by attention TP",)
    assert enrich.annotate(exc).id == "sglang/attn-tp-kv-heads"
    note = note_of(exc)
    assert note.splitlines()[0] == ("[sglang/attn-tp-kv-heads] 12 KV heads cannot be split over an attention "
                                    "TP group of 8: 8 does not divide 12.")
    assert "launch with --tp 6 or --tp 12" in note and "are 1, 2, 3, 4, 6, 12, 24" in note
    assert_sampled(exc, "sglang/attn-tp-kv-heads")


def test_attention_tp_kv_replication():
    from founding import attn_tp_kv_heads
    with pytest.raises(ValueError) as info:
        attn_tp_kv_heads(kv_heads=3, attn_tp=8)
    assert enrich.annotate(info.value).id == "sglang/attn-tp-kv-replication"
    assert "8 attention TP ranks cannot share 3 KV heads evenly" in note_of(info.value)
    assert "launch with --tp 6 or --tp 12" in note_of(info.value)
    assert_sampled(info.value, "sglang/attn-tp-kv-replication")


def test_attention_tp_heads():
    from founding import attn_tp_kv_heads
    with pytest.raises(ValueError) as info:
        attn_tp_kv_heads(kv_heads=12, attn_tp=16)
    assert enrich.annotate(info.value).id == "sglang/attn-tp-heads"
    assert note_of(info.value).startswith("[sglang/attn-tp-heads] 24 query heads cannot be split over an "
                                          "attention TP group of 16")
    assert_sampled(info.value, "sglang/attn-tp-heads")


@pytest.mark.parametrize("scenario", ["qwen3-next-bare-assert", "llama-bare-assert"])
def test_bare_assert_kv_heads(scenario):
    exc = raise_scenario(scenario)
    assert type(exc) is AssertionError and exc.args == ()
    assert enrich.annotate(exc).id == "sglang/attn-tp-kv-heads"
    assert "12 KV heads cannot be split over an attention TP group of 8" in note_of(exc)


def test_ensure_divisibility_names_the_sizes_that_work():
    exc = raise_scenario("not-divisible")
    assert str(exc) == "16 is not divisible by 6"
    assert enrich.annotate(exc).id == "sglang/not-divisible"
    assert "16 cannot be cut into 6 equal shards; sizes that divide it are 1, 2, 4, 8, 16." in note_of(exc)
