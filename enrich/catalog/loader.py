"""Find, parse and validate catalog files; load lazily, once, on the first exception.

Catalogs are packages of ``*.toml`` files registered under the ``enrich.catalogs``
entry-point group (enrich's own is ``enrich.patterns``). A file or entry that
fails validation is reported once, naming the file and field, and skipped; the
rest of the catalog still loads.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from enrich import forksafe
from enrich.catalog.derive import HELPERS
from enrich.catalog.index import Index
from enrich.catalog.schema import CatalogError, Entry, parse_entry
from enrich.guard import logger

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

GROUP = "enrich.catalogs"
OWN = "enrich.patterns"      # the module of enrich's own catalog


@dataclass
class Catalog:
    entries: dict[str, Entry]
    problems: list[CatalogError] = field(default_factory=list)

    def __post_init__(self):
        self.index = Index(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)


def parse_file(path: Path, label: str | None = None) -> tuple[list[Entry], list[CatalogError]]:
    label = label or str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [], [CatalogError(label, "(file)", f"cannot be read as TOML: {exc}")]
    defaults = {k: data[k] for k in ("engine", "distribution", "component", "resolution", "versions") if k in data}
    unknown = sorted(set(data) - set(defaults) - {"entry"})
    problems = [CatalogError(label, key, "unknown top-level field") for key in unknown]
    tables = data.get("entry", [])
    if not isinstance(tables, list):
        return [], problems + [CatalogError(label, "entry", "must be an array of tables ([[entry]])")]
    entries = []
    for i, table in enumerate(tables):
        try:
            if not isinstance(table, dict):
                raise CatalogError(label, f"entry[{i}]", "must be a table")
            entries.append(parse_entry(label, i, table, defaults, HELPERS))
        except CatalogError as exc:
            problems.append(exc)
    return entries, problems


def load_files(paths: Iterable[Path], root: Path | None = None) -> Catalog:
    entries: dict[str, Entry] = {}
    problems: list[CatalogError] = []
    for path in sorted(paths):
        label = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
        found, bad = parse_file(path, label)
        problems.extend(bad)
        for entry in found:
            if entry.id in entries:
                problems.append(CatalogError(label, f"id {entry.id}",
                                             f"duplicate of the entry in {entries[entry.id].file}"))
                continue
            entries[entry.id] = entry
    return Catalog(entries, problems)


def catalog_dirs() -> list[Path]:
    """Directories of every registered catalog package. enrich's own is read from the import path
    where no installed distribution registers it (a source tree on PYTHONPATH), with a warning:
    without it every error would read "not in the catalog"."""
    from importlib.metadata import entry_points

    # enrich's own catalog first, then the others by name: the same order in every process.
    found = sorted(entry_points(group=GROUP), key=lambda ep: (ep.value != OWN, ep.name))
    modules = [(ep.name, ep.value.split(":")[0]) for ep in found]
    if OWN not in (module for _, module in modules):
        logger.warning("enrich: no installed distribution registers its catalog (%s); reading it from the "
                       "import path (install enrich-llm to register it)", OWN)
        modules.insert(0, ("builtin", OWN))
    dirs = []
    for name, module_name in modules:
        try:
            module = importlib.import_module(module_name)
            dirs.extend(Path(p) for p in getattr(module, "__path__", [Path(module.__file__).parent]))
        except Exception as exc:  # noqa: BLE001 - one bad plug-in must not hide the others
            logger.warning("enrich: catalog %r could not be loaded: %s", name, exc)
    return dirs


def load_installed() -> Catalog:
    files = []
    for directory in catalog_dirs():
        files.extend((path, directory) for path in directory.rglob("*.toml"))
    entries: dict[str, Entry] = {}
    problems: list[CatalogError] = []
    for directory in dict.fromkeys(d for _, d in files):
        part = load_files([p for p, d in files if d == directory], root=directory.parent)
        for entry_id, entry in part.entries.items():
            if entry_id in entries:
                problems.append(CatalogError(entry.file, f"id {entry_id}",
                                             f"duplicate of the entry in {entries[entry_id].file}"))
            else:
                entries[entry_id] = entry
        problems.extend(part.problems)
    for problem in problems:
        logger.error("enrich: catalog problem, entry skipped: %s", problem)
    return Catalog(entries, problems)


_lock = forksafe.Lock()
_catalog: Catalog | None = None


def get_catalog() -> Catalog:
    """The installed catalog, loaded on first use."""
    global _catalog
    if _catalog is None:
        with _lock:
            if _catalog is None:
                _catalog = load_installed()
    return _catalog


def reset(catalog: Catalog | None = None) -> None:
    """Drop the loaded catalog (or put a given one in its place): for tests and tools."""
    global _catalog
    with _lock:
        _catalog = catalog
