"""Other packages add catalogs and integrations through entry points."""

import subprocess
import sys
import textwrap
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures"


def make_distribution(site: Path) -> None:
    """A tiny installed distribution: a catalog package and an integration, declared as entry points."""
    info = site / "acme_enrich-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-enrich\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[enrich.catalogs]\nacme = acme_patterns\n\n"
        "[enrich.integrations]\nacme = acme_integration:integration\n")
    (site / "acme_patterns").mkdir()
    (site / "acme_patterns" / "__init__.py").write_text("")
    (site / "acme_patterns" / "demo.toml").write_text((FIXTURES / "demo_catalog.toml").read_text())
    (site / "acme_integration.py").write_text(textwrap.dedent("""
        from enrich.activation.integration import Integration, Target
        integration = Integration(name="acme", targets=(Target("launch", "demo_targets", "launch"),))
    """))


def test_third_party_catalog_and_integration_are_picked_up(tmp_path):
    make_distribution(tmp_path)
    code = textwrap.dedent("""
        import enrich
        handle = enrich.install()
        import demo_targets
        try:
            demo_targets.launch(9, 4)
        except AssertionError as exc:
            print(exc._enrich["id"], exc._enrich["mechanism"])
        from enrich.catalog import get_catalog
        print(sorted(i.split("/")[0] for i in get_catalog().entries) [0], len(get_catalog().problems))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": f"{tmp_path}:{FIXTURES}", "PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["demo/not-divisible", "entrypoint:acme.launch", "demo", "0"], out.stderr


def test_its_own_catalog_is_read_from_the_import_path_when_no_distribution_registers_it(monkeypatch, caplog):
    """A source tree on PYTHONPATH has no installed metadata, so no entry point names enrich's own
    catalog: it is read from the import path, with a warning, not silently left out."""
    import importlib.metadata

    from enrich.catalog.loader import OWN, catalog_dirs

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [])
    with caplog.at_level("WARNING", logger="enrich"):
        dirs = catalog_dirs()
    assert any(d.joinpath("torch").is_dir() for d in dirs)
    assert any(OWN in r.getMessage() and "install enrich-llm" in r.getMessage() for r in caplog.records)
