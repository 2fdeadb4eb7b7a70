"""``enrich catalog verify`` over real release sources: the installed engines (and vLLM 0.34.0,
whose source lies in .cache/vllm-0.34.0), and older releases when the release cache holds them."""

import dataclasses
import os
import re
from pathlib import Path

import pytest

from enrich.catalog import get_catalog
from enrich.catalog.releases import cached_or_installed, installed
from enrich.catalog.tools import verify

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def release_cache(monkeypatch):
    own = os.environ.get("ENRICH_RELEASE_CACHE", str(ROOT / ".cache" / "releases"))
    monkeypatch.setenv("ENRICH_RELEASE_CACHE", os.pathsep.join([own, str(ROOT / ".cache")]))


def _asked():
    return [("vllm", "0.34.0")] if (ROOT / ".cache" / "vllm-0.34.0").is_dir() else []


def test_every_entry_fires_in_the_installed_releases():
    report = verify.verify(get_catalog(), _asked(), installed_only=True, fetch=False)
    assert [str(p) for p in report.problems] == []
    assert len(report.checked) >= 100
    assert {"sglang 0.5.23", "torch 2.14.1"} <= {r for _, r in report.checked}


def _sglang_entry():
    if installed("sglang") is None:
        pytest.skip("sglang is not installed")
    return get_catalog().entries["sglang/attn-tp-kv-heads"], installed("sglang")


def test_a_message_text_no_release_has_is_reported():
    entry, release = _sglang_entry()
    invented = dataclasses.replace(entry, message=re.compile(r"^Flux capacitor overheated at layer (\d+)$"),
                                   source=None)   # a raise line of its own would let it fire without the text
    problems, _ = verify.verify_entry(invented, release)
    assert [p.missing for p in problems] == ["message text 'Flux capacitor overheated at layer' is in no string of the release"]
    assert verify.verify_entry(entry, release) == ([], [])


def test_a_raise_site_the_release_lacks_is_reported():
    entry, release = _sglang_entry()
    moved = dataclasses.replace(entry, sites=("sglang.srt.models.qwen3:Qwen3Attention.no_such_method",))
    problems, _ = verify.verify_entry(moved, release)
    assert problems and "none of its raise sites exists" in problems[0].missing


def test_a_flag_or_variable_the_release_lacks_is_reported():
    entry, release = _sglang_entry()
    stale = dataclasses.replace(entry, fixes=(("launch with --frobnicate-kv-heads 4 and SGLANG_NO_SUCH_SWITCH=1",),))
    missing = [p.missing for p in verify.verify_entry(stale, release)[0]]
    assert "flag --frobnicate-kv-heads is not parsed by this release" in missing
    assert "environment variable SGLANG_NO_SUCH_SWITCH appears nowhere in the release" in missing


def test_a_cached_older_release_is_checked_with_its_own_flags():
    old = cached_or_installed("sglang", "0.5.2")
    if old is None:
        pytest.skip("sglang 0.5.2 is not in the release cache")
    entry = get_catalog().entries["sglang/attn-tp-kv-heads"]
    new_only = dataclasses.replace(entry, fixes=(("raise --attn-dp-size",),))
    assert [p.missing for p in verify.verify_entry(new_only, old)[0]] == ["flag --attn-dp-size is not parsed by this release"]


def test_the_command_exits_0_when_all_is_there_and_1_when_not(capsys):
    from enrich.cli import main
    if installed("sglang") is None:
        pytest.skip("sglang is not installed")
    assert main(["catalog", "verify", "--installed", "--entry", "sglang/attn-tp-kv-heads"]) == 0
    assert "1 entries, 1 entry-release pairs over 1 releases, 0 problems" in capsys.readouterr().out
