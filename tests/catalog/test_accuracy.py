"""What keeps catalog entries true to the code they explain: the raising condition (and the checker
that refuses a condition which can never hold), retired entries, and the sites an entry must not
claim, tested on real errors raised by the code that shares an entry's words."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from enrich.catalog import get_catalog, load_files
from enrich.render.page import markdown, page_of
from enrich.catalog.conditions import never_holds
from enrich.facts import from_exception, from_text
from enrich.catalog.tools.lint import lint
from enrich.match import all_matches
from enrich.catalog.tools.samples import sample_facts

ROOT = Path(__file__).resolve().parents[2]
VLLM = ROOT / ".cache" / "vllm-0.34.0"
GDN = "sglang/gdn-packed-nk"


# --- conditions ------------------------------------------------------------------------------

def test_the_gdn_block_check_can_never_hold():
    # sglang 0.5.23 fused_recurrent.py: BK = triton.next_power_of_2(K); if triton.cdiv(K, BK) != 1: raise
    assert never_holds(get_catalog().entries[GDN].condition)
    assert never_holds("cdiv(K, next_power_of_2(K)) != 1")


@pytest.mark.parametrize("condition", ["x % 1 != 0", "tp != tp", "not (heads == heads)", "n - n > 0",
                                       "a % a != 0 or b < b", "2 > 3"])
def test_decidable_conditions_that_never_hold(condition):
    assert never_holds(condition)


@pytest.mark.parametrize("condition", [
    "triton.cdiv(K, BK) != 1",                       # without the binding, BK could be anything
    "H <= 0 or HV % H != 0 where H = q_dim // K",
    "self.total_num_kv_heads % tp_size != 0",
    "numerator % denominator != 0",
    "NCCL's init: two ranks report the same GPU bus id",   # prose: not decided
])
def test_conditions_that_can_hold_are_not_refused(condition):
    assert not never_holds(condition)


def test_every_active_entry_with_a_site_states_a_condition_that_can_hold():
    for entry in get_catalog().entries.values():
        if entry.sites and entry.retired is None:
            assert entry.condition and not never_holds(entry.condition), entry.id


def test_lint_refuses_an_entry_whose_check_cannot_fail(tmp_path):
    text = (ROOT / "patterns/sglang/gdn-packed-decode.toml").read_text()
    unretired = text.replace('retired = """', 'meaning_ = """', 1).replace("meaning_ = ", "# ", 1)
    start = unretired.index("# \"\"\"")
    unretired = unretired[:start] + unretired[unretired.index('"""', start + 6) + 3:]
    (tmp_path / "gdn.toml").write_text(unretired)
    catalog = load_files([tmp_path / "gdn.toml"], root=tmp_path)
    assert catalog.entries[GDN].retired is None
    assert any(GDN in p and "can never hold" in p for p in lint(catalog, pages=None))


def test_lint_wants_a_condition_where_a_site_is_given(tmp_path):
    text = (ROOT / "patterns/sglang/kv-cache-scales.toml").read_text()
    (tmp_path / "kv.toml").write_text("\n".join(l for l in text.splitlines() if not l.startswith("condition = ")))
    problems = lint(load_files([tmp_path / "kv.toml"], root=tmp_path), pages=None)
    assert any("sglang/kv-scale-attribute" in p and "no condition" in p for p in problems)


@pytest.mark.parametrize("message, open_text", [
    (r"^Ninja build failed\.|^\S*?/flashinfer/data/(?P<f>\S+): error: (?P<e>.+)", False),   # each its own
    (r"^Ninja build failed\.|^(?P<f>\S+): error: (?P<e>.+)", True),      # the second is anyone's
    (r"^(?P<n>\d+) is not divisible by (?P<m>\d+)", False),
    (r"^(?P<n>\d+) bad", True),
])
def test_lint_judges_each_alternative_of_a_message_on_its_own(tmp_path, entry_toml, message, open_text):
    (tmp_path / "demo.toml").write_text(entry_toml(message=message, sample="Ninja build failed." if "Ninja" in message
                                                   else "12 is not divisible by 5" if "divisible" in message else "3 bad",
                                                   summary="s", fixes="f", tables=""))
    problems = lint(load_files([tmp_path / "demo.toml"], root=tmp_path), pages=None)
    assert any("open text" in p for p in problems) == open_text, problems


# --- retired entries -------------------------------------------------------------------------

def test_a_retired_entry_matches_nothing_and_keeps_its_page():
    catalog = get_catalog()
    entry = catalog.entries[GDN]
    assert entry.retired and "next_power_of_2" in entry.retired
    for sample in entry.samples:
        assert GDN not in [m.entry.id for m in all_matches(sample_facts(entry, sample), catalog)]
    page = (ROOT / "docs/catalog/sglang--gdn-packed-nk.md").read_text()
    assert page == markdown(page_of(entry)) and "## Retired" in page


def test_lint_knows_published_ids(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "sglang--gdn-packed-nk.md").write_text("# retired, still here\n")
    (pages / "sglang--an-entry-deleted.md").write_text("# deleted instead of retired\n")
    problems = lint(get_catalog(), pages=pages)
    assert [p for p in problems if "was published and is gone" in p] == [
        f"{pages}: sglang/an-entry-deleted was published and is gone: keep it with `retired = \"<why>\"` "
        "so the ID is never reused"]
    assert lint(get_catalog(), pages=ROOT / "docs/catalog") == []


# --- sites an entry must not claim (real errors from the code that shares the words) -------------

def _ids(exc: BaseException) -> list[str]:
    return [m.entry.id for m in all_matches(from_exception(exc), get_catalog())]


def test_sglang_model_config_attribute_error_is_not_a_transformers_config():
    from sglang.srt.configs.model_config import ModelConfig
    with pytest.raises(AttributeError) as info:
        object.__new__(ModelConfig).get_total_num_kv_heads()     # raised in sglang's own code
    assert str(info.value) == "'ModelConfig' object has no attribute 'hf_config'"
    assert "transformers/config-missing-attribute" not in _ids(info.value)
    # the same line in a log, with no frames, is refused by the class name
    text_only = from_text("AttributeError", str(info.value))
    assert "transformers/config-missing-attribute" not in [m.entry.id for m in all_matches(text_only, get_catalog())]


def test_a_real_transformers_config_attribute_error_is_still_claimed():
    from transformers import BertConfig
    with pytest.raises(AttributeError) as info:
        BertConfig().num_key_value_heads
    assert _ids(info.value)[0] == "transformers/config-missing-attribute"


def test_sglang_diffusion_runtime_divisibility_is_not_the_llm_entry():
    from sglang.multimodal_gen.runtime.distributed.utils import ensure_divisibility
    with pytest.raises(AssertionError) as info:
        ensure_divisibility(16, 6)
    assert str(info.value) == "16 is not divisible by 6"
    assert "sglang/not-divisible" not in _ids(info.value)


VLLM_CHILD = """
from enrich.catalog import get_catalog
from enrich.facts import from_exception, from_text
from enrich.match import all_matches
from vllm.config import ModelConfig
from vllm.distributed.utils import ensure_divisibility
for call in (lambda: object.__new__(ModelConfig).get_head_size(), lambda: ensure_divisibility(16, 6)):
    try:
        call()
    except (AttributeError, AssertionError) as exc:
        print("MATCHED", str(exc), "->", " ".join(m.entry.id for m in all_matches(from_exception(exc), get_catalog())))
"""


@pytest.mark.skipif(not (VLLM / "vllm").is_dir(), reason="vLLM 0.34.0 not unpacked (scripts/setup does it)")
def test_vllm_errors_with_the_same_words_are_not_claimed():
    out = subprocess.run([sys.executable, "-c", VLLM_CHILD], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(VLLM)})
    matched = dict(line[len("MATCHED "):].split(" -> ") for line in out.stdout.splitlines() if line.startswith("MATCHED"))
    assert matched.keys() == {"'ModelConfig' object has no attribute 'model_arch_config'", "16 is not divisible by 6"}, \
        out.stderr[-2000:]
    assert "transformers/config-missing-attribute" not in matched["'ModelConfig' object has no attribute 'model_arch_config'"]
    assert matched["16 is not divisible by 6"].split()[0] == "vllm/not-divisible"
    assert "sglang/not-divisible" not in matched["16 is not divisible by 6"].split()


# --- "launch with --tp N": launch units, checked by sglang's own arithmetic ---------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from enrich.catalog.derive import attention_tp_sizes, launch_tp_options, nearest_launch_tp, nearest_launch_tp_kv  # noqa: E402


def sglang_accepts(heads: int, kv_heads: int, tp: int, attn_dp: int, attn_cp: int, dcp: int) -> bool:
    """Does sglang 0.5.23 build the attention layer at this launch? Its own functions where they run on
    CPU (derive_attn_tp_size; divide, the check ReplicatedParallelGroup runs on attn_tp / dcp); the
    head checks as written in models/qwen3_5.py Qwen3_5AttentionDecoderLayer.__init__ (L1293-L1299)."""
    from sglang.srt.distributed.utils import divide
    from sglang.srt.runtime_context import derive_attn_tp_size
    if tp % (attn_dp * attn_cp):
        return False
    attn_tp = derive_attn_tp_size(tp_size=tp, attn_cp_size=attn_cp, attn_dp_size=attn_dp)
    try:
        kv_tp = divide(attn_tp, dcp)
    except AssertionError:
        return False
    if heads % attn_tp:
        return False
    return kv_heads % kv_tp == 0 if kv_heads >= kv_tp else kv_tp % kv_heads == 0


def _suggested(text: str) -> list[tuple[int, dict[str, int]]]:
    out = []
    for option in filter(None, text.split(" or ")):
        words = option.split()
        flags = dict(zip(words[::2], map(int, words[1::2])))
        out.append((flags.pop("--tp"), flags))
    return out


layouts = st.fixed_dictionaries({
    "kv_heads": st.integers(1, 64), "group": st.sampled_from([1, 2, 3, 4, 5, 6, 8]),
    "attn_tp": st.integers(1, 64), "attn_dp": st.sampled_from([1, 2, 4, 8]), "attn_cp": st.sampled_from([1, 2]),
    "dcp": st.sampled_from([1, 2, 4])})


@settings(max_examples=300, deadline=None)
@given(layouts)
def test_the_suggested_launch_passes_sglangs_checks(layout):
    from sglang.srt.runtime_context import get_parallel
    heads, kv = layout["kv_heads"] * layout["group"], layout["kv_heads"]
    attn_dp, attn_cp, dcp, attn_tp = layout["attn_dp"], layout["attn_cp"], layout["dcp"], layout["attn_tp"]
    tp = attn_tp * attn_dp * attn_cp
    with get_parallel().override(tp_size=tp, attn_dp_size=attn_dp, attn_cp_size=attn_cp, attn_dcp_size=dcp):
        text = nearest_launch_tp(heads, kv, attn_tp)
    bound = heads * attn_dp * attn_cp + 1      # attention TP divides the heads: no valid --tp above this
    valid = [t for t in range(1, bound) if sglang_accepts(heads, kv, t, attn_dp, attn_cp, dcp)]
    assert [t for t in launch_tp_options(heads, kv, dcp, attn_dp, attn_cp) if t < bound] == valid
    if text is None:
        assert not [t for t in valid if t != tp]
        return
    kept = {f: n for f, n in (("--attn-dp-size", attn_dp), ("--attn-cp-size", attn_cp), ("--dcp-size", dcp)) if n > 1}
    for suggested_tp, flags in _suggested(text):
        assert flags == kept                              # the user's other parallel flags stay as they were
        assert suggested_tp != tp and sglang_accepts(heads, kv, suggested_tp, attn_dp, attn_cp, dcp)
    below, above = [t for t in valid if t < tp], [t for t in valid if t > tp]
    assert [t for t, _ in _suggested(text)] == below[-1:] + above[:1]     # the nearest on each side


@settings(max_examples=200, deadline=None)
@given(layouts)
def test_dcp_from_the_frames_own_sizes(layout):
    heads, kv = layout["kv_heads"] * layout["group"], layout["kv_heads"]
    attn_tp, dcp = layout["attn_tp"] * layout["dcp"], layout["dcp"]
    text = nearest_launch_tp_kv(heads, kv, attn_tp, attn_tp // dcp)   # no sglang state: attention DP 1
    for suggested_tp, flags in _suggested(text or ""):
        assert flags == ({"--dcp-size": dcp} if dcp > 1 else {})
        assert sglang_accepts(heads, kv, suggested_tp, 1, 1, dcp)


def test_attention_tp_sizes_are_in_attention_tp_units():
    # 24 query / 12 KV heads; with attention DP 2 the launch sizes double, the attention-TP sizes do not
    assert attention_tp_sizes(24, 12) == "1, 2, 3, 4, 6, 12, 24"
    assert launch_tp_options(24, 12, attn_dp=2) == [2, 4, 6, 8, 12, 24, 48]
