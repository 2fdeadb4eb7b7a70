import sys
from pathlib import Path

import pytest

import enrich
from enrich import catalog

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))   # the demo's scenarios


def pytest_collection_modifyitems(items):
    """The longest module (every corpus paste in several wrappers) first: with a worker per core
    (scripts/test), it starts at once while the other workers share the rest."""
    items.sort(key=lambda item: item.path.name != "test_wrapped_logs.py")


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


def entry_toml(id: str = "demo/good", *, message: str = r"odd (?P<n>\d+)", sample: str = "odd 3",
               summary: str = "{n} is odd", fixes: str = "use {n_plus}", exceptions: str = "ValueError",
               component: str = "config", tables: str = '[entry.derive]\nn_plus = { helper = "divisors", args = ["n"] }') -> str:
    """One minimal catalog entry as TOML; the arguments are what the tests vary."""
    return f'''
engine = "demo"
component = "{component}"
resolution = "fix-config"
[[entry]]
id = "{id}"
title = "A good entry"
meaning = "m"
causes = ["c"]
summary = ["{summary}"]
fixes = ["{fixes}"]
[entry.match]
exceptions = ["{exceptions}"]
message = '{message}'
{tables}
[[entry.samples]]
message = "{sample}"
origin = "test"
'''


@pytest.fixture(name="entry_toml")
def entry_toml_fixture():
    """The builder of a minimal catalog entry (see ``entry_toml``)."""
    return entry_toml
