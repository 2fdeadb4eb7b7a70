"""The enrich command: catalog tools and the explanation page of an entry."""

import subprocess
import sys
from pathlib import Path

from enrich.catalog import load_files
from enrich.samples import check_samples
from enrich.lint import lint, nested_repeat
from enrich.scan import scan_source


def enrich(*args, **kw):
    return subprocess.run([sys.executable, "-m", "enrich", *args], capture_output=True, text=True, timeout=120, **kw)


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
    missing = enrich("explain", "sglang/nope")
    assert missing.returncode == 2 and "no catalog entry" in missing.stderr


def test_lint_rejects_backtracking_and_wordless_patterns(tmp_path):
    assert nested_repeat(r"^(\w+\s?)+$") and nested_repeat(r"(a*)*") and not nested_repeat(r"^x (?P<n>\d+) y$")
    (tmp_path / "bad.toml").write_text('''
engine = "demo"
component = "config"
resolution = "fix-config"
[[entry]]
id = "demo/slow"
title = "t"
meaning = "m"
causes = ["c"]
summary = ["s"]
fixes = ["f"]
[entry.match]
exceptions = ["ValueError"]
message = '^(\\\\w+\\\\s?)+ failed$'
[[entry.samples]]
message = "this one failed"
origin = "test"
''')
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


SEED = Path(__file__).resolve().parents[2] / "shared" / "research" / "seeds" / "002_d1a6bbb3f467473e.txt"


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
    committed = Path(__file__).resolve().parent.parent / "docs" / "catalog"
    generated = {p.name: p.read_text() for p in tmp_path.glob("*.md")}
    assert generated == {p.name: p.read_text() for p in committed.glob("*.md")}, \
        "docs/catalog is stale: run `enrich catalog docs docs/catalog`"
