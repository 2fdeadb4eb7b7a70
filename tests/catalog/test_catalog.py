"""The shipped catalog is valid, and every sample matches its own entry and no other."""

import re

import pytest

from enrich.catalog import get_catalog, load_files
from enrich.catalog.tools.samples import check_samples

from conftest import entry_toml

GOOD = entry_toml()


def test_shipped_catalog_loads_without_problems():
    catalog = get_catalog()
    assert catalog.problems == []
    assert len(catalog) >= 14
    founding = {"sglang/mlx-attention-head-counts", "sglang/gdn-head-config",
                "sglang/kv-scale-attribute", "sglang/attn-tp-kv-heads"}
    assert founding <= set(catalog.entries)


def test_every_sample_matches_its_own_entry_only():
    assert check_samples(get_catalog()) == []


def test_every_entry_has_a_sample_and_a_pinned_source_link():
    for entry in get_catalog().entries.values():
        assert entry.samples, entry.id
        assert all(s.origin.split(":")[0] in ("real run", "reported", "source") for s in entry.samples), entry.id
        # at least one link to the source at a pinned release (others may point at issues or PRs)
        assert any(re.search(r"/blob/v?\d[^/]*/", link) for link in entry.links), entry.id


@pytest.mark.parametrize("mutation, field, problem", [
    (('id = "demo/good"', 'id = "Demo Good"'), "entry[0].id", "does not match"),
    (("message = 'odd (?P<n>\\d+)'", "message = 'odd (?P<n>\\d+'"), "match.message", "invalid regular expression"),
    (('summary = ["{n} is odd"]', 'summary = ["{m} is odd"]'), "summary[0]", "{m} is not captured"),
    (('helper = "divisors"', 'helper = "nope"'), "derive.n_plus.helper", "unknown helper"),
    (('component = "config"', 'component = "weather"'), "component", "is not one of"),
    (('resolution = "fix-config"', 'resolution = "reboot"'), "entry[0] (demo/good).resolution", "is not one of"),
    (('resolution = "fix-config"\n', ''), "entry[0] (demo/good).resolution", "is required"),
    (('[[entry.samples]]\nmessage = "odd 3"\norigin = "test"', ''), "samples", "at least one"),
    (('summary = ["{n} is odd"]', 'summary = ["{n.__class__} is odd"]'), "summary[0]", "plain name"),
    (("[entry.derive]", "[entry.match.in_text]\nshows = 'demo'\nmessage = 'even (?P<m>\\d+)'\n[entry.derive]"),
     "match.in_text.message", "group 'm' is not"),
    (("[entry.derive]", "[entry.match.in_text]\nshows = 'demo'\n[entry.derive]"), "match.in_text.message", "is required"),
    (("[entry.derive]", "[entry.match.in_text]\nshows = 'demo('\nmessage = 'x'\n[entry.derive]"),
     "match.in_text.shows", "invalid regular expression"),
    (("[entry.derive]", "[entry.match.in_text]\nmessage = 'x'\n[entry.derive]"), "match.in_text.shows", "is required"),
    (("[entry.derive]", "[entry.match.in_text]\nnames = [1]\nmessage = 'x'\n[entry.derive]"),
     "match.in_text.names", "list of non-empty strings"),
])
def test_a_bad_entry_is_named_by_file_and_field_and_the_rest_still_loads(tmp_path, mutation, field, problem):
    (tmp_path / "bad.toml").write_text(GOOD.replace(*mutation))
    (tmp_path / "good.toml").write_text(GOOD.replace("demo/good", "demo/other"))
    catalog = load_files(sorted(tmp_path.glob("*.toml")), root=tmp_path)
    assert list(catalog.entries) == ["demo/other"]
    [error] = catalog.problems
    assert error.file == "bad.toml"
    assert field in error.field and problem in error.problem, str(error)


def test_a_file_that_is_not_toml_is_reported_and_skipped(tmp_path):
    (tmp_path / "broken.toml").write_text("[[entry]\nid = ")
    (tmp_path / "good.toml").write_text(GOOD)
    catalog = load_files(sorted(tmp_path.glob("*.toml")), root=tmp_path)
    assert list(catalog.entries) == ["demo/good"]
    assert catalog.problems[0].file == "broken.toml"
    assert "TOML" in catalog.problems[0].problem


def test_duplicate_ids_keep_the_first_and_report_the_second(tmp_path):
    (tmp_path / "a.toml").write_text(GOOD)
    (tmp_path / "b.toml").write_text(GOOD)
    catalog = load_files(sorted(tmp_path.glob("*.toml")), root=tmp_path)
    assert list(catalog.entries) == ["demo/good"]
    assert re.search("duplicate of the entry in a.toml", str(catalog.problems[0]))


@pytest.mark.parametrize("mutation, field", [
    (("[entry.match]", "[entry.match]\nsouce = 'x'"), "match.souce"),
    (('origin = "test"', 'origin = "test"\nsite_ = "a:b"'), "samples[0].site_"),
    (("[entry.derive]", "[entry.match.in_text]\nshows = 'demo'\nmessage = 'x'\nshow = 'y'\n[entry.derive]"),
     "match.in_text.show"),
])
def test_a_typo_in_a_subtable_is_reported(tmp_path, mutation, field):
    (tmp_path / "bad.toml").write_text(GOOD.replace(*mutation))
    catalog = load_files([tmp_path / "bad.toml"], root=tmp_path)
    assert not catalog.entries and field in catalog.problems[0].field


def test_a_third_party_catalog_brings_its_own_derive_helper(tmp_path, use_catalog):
    from enrich.catalog.derive import HELPERS, register

    @register(name="acme_double")
    def double(n):
        return str(2 * int(n))
    try:
        with pytest.raises(ValueError, match="already registered"):
            register(lambda n: n, name="divisors")      # a built-in keeps its meaning
        loaded = use_catalog(tmp_path, acme=entry_toml("acme/odd", fixes="use {twice}",
                                                        tables='[entry.derive]\ntwice = { helper = "acme_double", args = ["n"] }'))
        assert loaded.problems == [] and "acme/odd" in loaded.entries
        import enrich
        enrichment = enrich.annotate(ValueError("odd 21"))
        assert enrichment is not None and enrichment.fixes == ("use 42",)
    finally:
        HELPERS.pop("acme_double", None)


def test_every_entry_names_a_resolution_from_the_vocabulary():
    from enrich.catalog.resolution import NAMES
    entries = get_catalog().entries.values()
    assert all(entry.resolution in NAMES for entry in entries)
    used = {entry.resolution for entry in entries}
    assert used == set(NAMES)    # every resolution has at least one entry that needs it


def test_an_entry_overrides_its_files_resolution(tmp_path):
    (tmp_path / "a.toml").write_text(GOOD.replace('title = "A good entry"', 'title = "A good entry"\nresolution = "retry"'))
    assert load_files([tmp_path / "a.toml"], root=tmp_path).entries["demo/good"].resolution == "retry"
    (tmp_path / "a.toml").write_text(GOOD)
    assert load_files([tmp_path / "a.toml"], root=tmp_path).entries["demo/good"].resolution == "fix-config"


def test_an_alternation_ranks_by_the_alternative_that_matched(tmp_path):
    """Two entries fit one message: the one whose matching words are more specific wins, though
    its pattern is an alternation at the top (whose top level alone holds no literal text)."""
    from enrich.facts import from_text
    from enrich.match import best_match

    (tmp_path / "a.toml").write_text(entry_toml("demo/broad", message=r"number (?P<n>\d+)",
                                                sample="number 3", fixes="use {n}", tables=""))
    (tmp_path / "b.toml").write_text(entry_toml("demo/specific", message=r"odd number (?P<n>\d+)|strange (?P<n__2>\d+)",
                                                sample="odd number 3", fixes="use {n}",
                                                tables=""))
    catalog = load_files(sorted(tmp_path.glob("*.toml")), root=tmp_path)
    assert not catalog.problems
    assert best_match(from_text("ValueError", "odd number 3"), catalog).entry.id == "demo/specific"
    assert best_match(from_text("ValueError", "even number 4"), catalog).entry.id == "demo/broad"
