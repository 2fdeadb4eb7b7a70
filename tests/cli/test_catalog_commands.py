"""enrich catalog ...: lint, list, show, search, scan, import, docs."""

import json
from pathlib import Path

from cli_run import assert_one_line_error, run_cli as enrich

from enrich.catalog import load_files
from enrich.catalog.tools.samples import check_samples
from enrich.catalog.tools.lint import lint, nested_repeat
from enrich.raise_sites import scan_source


def test_the_shipped_catalog_passes_lint():
    out = enrich("catalog", "lint")
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("entries, 0 problems")
    assert int(out.stdout.split()[-4]) >= 100


def test_list_show_search():
    assert "sglang/attn-tp-kv-heads" in enrich("catalog", "list").stdout
    page = enrich("explain", "sglang/gdn-head-config").stdout
    assert page.startswith("sglang/gdn-head-config: GDN packed decode") and "Fixes" in page and "Samples" in page
    assert enrich("catalog", "search", "packed", "decode").stdout.count("sglang/gdn-") >= 3
    assert_one_line_error(enrich("explain", "sglang/nope"), 2, "no such file or catalog entry: 'sglang/nope'")
    assert_one_line_error(enrich("catalog", "show", "sglang/nope"), 2, "no such catalog entry")


def test_json_on_list_show_search_and_an_error_where_it_does_not_apply():
    listed = json.loads(enrich("catalog", "list", "--json").stdout)
    assert len(listed) >= 100 and {"id", "title", "fixes", "exceptions"} <= set(listed[0])
    shown = json.loads(enrich("catalog", "show", "--json", "sglang/attn-tp-kv-heads").stdout)
    assert shown["id"] == "sglang/attn-tp-kv-heads" and shown["docs"] == "enrich explain sglang/attn-tp-kv-heads"
    assert json.loads(enrich("explain", "--json", "sglang/attn-tp-kv-heads").stdout) == shown
    in_text = json.loads(enrich("catalog", "show", "--json", "vllm/spawn-main-guard").stdout)["in_text"]
    assert in_text["names"] == ["vllm"] and in_text["shows"].startswith("\\bvllm") and "bootstrapping" in in_text["message"]
    found = json.loads(enrich("catalog", "search", "--json", "packed", "decode").stdout)
    assert len(found) >= 3 and all(e["id"].startswith("sglang/") for e in found)
    assert_one_line_error(enrich("catalog", "lint", "--json"), 2, "--json does not apply to catalog lint")


def test_ids_with_brackets_and_close_misspellings():
    page = enrich("explain", "[sglang/attn-tp-kv-heads]")
    assert page.returncode == 0 and page.stdout.startswith("sglang/attn-tp-kv-heads: ")
    assert enrich("catalog", "show", "[sglang/attn-tp-kv-heads]").stdout == page.stdout
    assert_one_line_error(enrich("explain", "sglang/atn-tp-kv-head"), 2, "did you mean: sglang/attn-tp-kv-heads")


def test_catalog_usage_errors_are_one_line(tmp_path):
    assert_one_line_error(enrich("catalog", "scan"), 2, "required: PACKAGE")
    assert_one_line_error(enrich("catalog", "scan", "no_such_package_here"), 2, "not an installed package")
    assert_one_line_error(enrich("catalog", "import", tmp_path / "missing.json"), 2, "cannot read")
    (tmp_path / "bad.json").write_text("{not json")
    assert_one_line_error(enrich("catalog", "import", tmp_path / "bad.json"), 2, "is not a JSON error record")
    (tmp_path / "old.json").write_text('{"schemaVersion": 1}')
    assert_one_line_error(enrich("catalog", "import", tmp_path / "old.json"), 2, "expected schemaVersion 2")
    assert_one_line_error(enrich("catalog", "frobnicate"), 2, "invalid choice")


def test_lint_rejects_backtracking_and_wordless_patterns(tmp_path, entry_toml):
    assert nested_repeat(r"^(\w+\s?)+$") and nested_repeat(r"(a*)*") and not nested_repeat(r"^x (?P<n>\d+) y$")
    (tmp_path / "bad.toml").write_text(entry_toml("demo/slow", message=r"^(\\w+\\s?)+ failed$", sample="this one failed",
                                                  summary="s", fixes="f", tables=""))
    problems = lint(load_files([tmp_path / "bad.toml"], root=tmp_path))
    assert any("catastrophic backtracking" in p for p in problems), problems


def test_scan_states_guards_and_templates():
    source = '''
def launch(H, HV):
    if H <= 0 or HV % H != 0:
        raise ValueError(f"Invalid head config inferred from mixed_qkv: H={H}, HV={HV}.")
    assert HV % 2 == 0
'''
    raised, asserted = scan_source(source, "kernels")
    assert (raised.site, raised.guard, raised.exception) == ("kernels:launch", "H <= 0 or HV % H != 0", "ValueError")
    assert raised.pattern == r"^Invalid head config inferred from mixed_qkv: H=(.+?), HV=(.+?)\.$"
    assert (asserted.kind, asserted.guard, asserted.template) == ("assert", "HV % 2 == 0", [])


SEED = Path(__file__).resolve().parents[3] / "shared" / "research" / "seeds" / "002_d1a6bbb3f467473e.txt"


def test_import_drafts_a_loadable_entry_from_an_error_record(tmp_path):
    record = SEED if SEED.exists() else None
    if record is None:
        import pytest
        pytest.skip("the seed record is not beside this checkout")
    out = enrich("catalog", "import", str(record))
    assert out.returncode == 0, out.stderr
    (tmp_path / "draft.toml").write_text(out.stdout)
    catalog = load_files([tmp_path / "draft.toml"], root=tmp_path)
    assert catalog.problems == [] and check_samples(catalog) == []
    [entry] = catalog.entries.values()
    assert entry.exceptions == ("RuntimeError",) and entry.sites == ("sglang.srt.models.mimo_v2:*load_kv_cache_scales",)


def test_reference_pages_are_current(tmp_path):
    """docs/catalog is generated (enrich catalog docs docs/catalog): regenerate and compare."""
    out = enrich("catalog", "docs", str(tmp_path))
    assert out.returncode == 0
    committed = Path(__file__).resolve().parents[2] / "docs" / "catalog"
    generated = {p.name: p.read_text() for p in tmp_path.glob("*.md")}
    assert generated == {p.name: p.read_text() for p in committed.glob("*.md")}, \
        "docs/catalog is stale: run `enrich catalog docs docs/catalog`"
