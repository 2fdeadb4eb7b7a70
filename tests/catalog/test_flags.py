"""Flag tables read from the engines' own parsers: spellings per release, deprecation, and what
lint and rendering do with them. The installed sglang is read from source; older releases come
from the release cache when they are there."""

from pathlib import Path

import pytest

from enrich.catalog import flags, load_files
from enrich.catalog.releases import cached_or_installed, installed
from enrich.catalog.tools.flagtable import scan
from enrich.catalog.tools.lint import lint
from enrich.versions import installed_version

ENTRY = '''
engine = "sglang"
component = "config"
versions = ">=0.5,<0.6"
resolution = "fix-config"
[[entry]]
id = "demo/dp"
title = "t"
meaning = "m"
causes = ["c"]
summary = ["s"]
fixes = ["{fix}"]
[entry.match]
exceptions = ["ValueError"]
message = '^demo flag check error$'
[[entry.samples]]
message = "demo flag check error"
origin = "test"
'''


def test_a_renamed_flag_is_spelled_as_each_release_takes_it():
    # --cuda-graph-max-bs became --cuda-graph-max-bs-decode in 0.5.14 (the old one kept, deprecated)
    assert flags.deprecated("sglang", "--cuda-graph-max-bs", "0.5.14")["use"] == "--cuda-graph-max-bs-decode"
    assert flags.spelling("sglang", "--cuda-graph-max-bs", "0.5.23") == "--cuda-graph-max-bs-decode"
    assert flags.spelling("sglang", "--cuda-graph-max-bs-decode", "0.5.2") == "--cuda-graph-max-bs"
    assert flags.spelling("sglang", "--cuda-graph-max-bs-decode", "0.5.23") == "--cuda-graph-max-bs-decode"
    assert flags.spelling("sglang", "--mem-fraction-static", "0.4.0") == "--mem-fraction-static"


def test_dp_attention_is_deprecated_for_attn_dp_size_from_0_5_22():
    gone = flags.deprecated("sglang", "--enable-dp-attention", "0.5.23")
    assert gone == {"since": "0.5.22", "use": "--attn-dp-size <dp-size>"}
    assert flags.deprecated("sglang", "--enable-dp-attention", "0.5.2") is None
    assert flags.known("sglang", "--attn-dp-size", ">=0.5.22")
    assert not flags.known("sglang", "--attn-dp-size", ">=0.4,<0.5.21")
    assert flags.deprecated("sglang", "--disable-cuda-graph", "0.5.23")["use"].startswith("--cuda-graph-backend-")


def test_the_installed_sglang_parser_agrees_with_the_table():
    release = installed("sglang")
    if release is None:
        pytest.skip("sglang is not installed")
    parsed = scan(release, "sglang")
    assert parsed["--enable-dp-attention"]["deprecated"]
    assert parsed["--enable-dp-attention"]["use"] == "--attn-dp-size <dp-size>"
    assert "--tensor-parallel-size" in parsed["--tp-size"]["aliases"]
    unknown = [name for name in parsed if not flags.accepted("sglang", name, release.version)]
    assert unknown == []


def test_an_older_release_from_the_cache_lacks_the_new_flag():
    release = cached_or_installed("sglang", "0.5.2")
    if release is None:
        pytest.skip("sglang 0.5.2 is not in the release cache")
    parsed = scan(release, "sglang")
    assert "--enable-dp-attention" in parsed and not parsed["--enable-dp-attention"]["deprecated"]
    assert "--attn-dp-size" not in parsed and "--cuda-graph-max-bs" in parsed


def _lint_one(tmp_path: Path, fix: str) -> list[str]:
    (tmp_path / "demo.toml").write_text(ENTRY.replace("{fix}", fix))
    return [p for p in lint(load_files([tmp_path / "demo.toml"], root=tmp_path)) if "fix names" in p]


def test_lint_rejects_a_fix_that_gives_only_the_deprecated_spelling(tmp_path):
    problems = _lint_one(tmp_path, "shrink attention TP with --enable-dp-attention --dp-size 2")
    assert len(problems) == 1 and "deprecated since sglang 0.5.22" in problems[0]
    assert _lint_one(tmp_path, "use --attn-dp-size 2 (on releases before 0.5.22: --enable-dp-attention --dp-size 2)") == []


def test_lint_rejects_a_flag_no_release_in_range_knows(tmp_path):
    problems = _lint_one(tmp_path, "launch with --frobnicate-kv-heads 4")
    assert problems and "--frobnicate-kv-heads" in problems[0]
    assert _lint_one(tmp_path, "reinstall: pip install --force-reinstall sglang") == []


def test_fixes_render_in_the_installed_release_spelling():
    version = installed_version("sglang")
    if version is None:
        pytest.skip("sglang is not installed")
    text = "capture fewer batch sizes with --cuda-graph-max-bs 16 (on releases before 0.5.14: --cuda-graph-max-bs)"
    expected = flags.spelling("sglang", "--cuda-graph-max-bs", version)
    assert flags.for_installed(text, "sglang").startswith(f"capture fewer batch sizes with {expected} 16")
    assert flags.for_installed(text, "sglang").endswith("(on releases before 0.5.14: --cuda-graph-max-bs)")
