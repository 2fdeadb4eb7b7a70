import sys
from pathlib import Path

import pytest

import enrich
from enrich import catalog

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))


@pytest.fixture
def installed():
    """enrich.install() for one test, undone afterwards."""
    handle = enrich.install()
    yield handle
    enrich.uninstall()


@pytest.fixture
def use_catalog():
    """Swap in a catalog built from given TOML texts; the installed one comes back afterwards."""
    def load(tmp_path: Path, **files: str):
        for name, text in files.items():
            (tmp_path / f"{name}.toml").write_text(text)
        loaded = catalog.load_files(sorted(tmp_path.glob("*.toml")), root=tmp_path)
        catalog.reset(loaded)
        return loaded
    yield load
    catalog.reset()


@pytest.fixture
def demo_catalog():
    """The catalog of tests/fixtures/demo_catalog.toml in place of the installed one."""
    loaded = catalog.load_files([FIXTURES / "demo_catalog.toml"], root=FIXTURES)
    assert not loaded.problems
    catalog.reset(loaded)
    yield loaded
    catalog.reset()


def pytest_report_header():
    return f"python {sys.version.split()[0]}"
