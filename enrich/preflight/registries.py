"""Which architectures and model types the installed engines know, read from their source files.

Nothing is imported: vLLM's registry module, sglang's ``EntryClass`` declarations and transformers'
``CONFIG_MAPPING_NAMES`` are plain text to read. A package that is not installed gives None, and
the rules that need it report that they could not check.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)   # top-level only: finding it does not import it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_VLLM_ENTRY = re.compile(r'^\s*"(\w+)":\s*\(', re.M)


@functools.lru_cache(maxsize=4)
def vllm_architectures(root: Path | None = None) -> frozenset[str] | None:
    root = root or _package_dir("vllm")
    text = _read(root / "model_executor" / "models" / "registry.py") if root else ""
    return frozenset(_VLLM_ENTRY.findall(text)) or None


_SGLANG_ENTRY = re.compile(r"^EntryClass\s*=\s*(\[[^\]]*\]|[\w.]+)", re.M)


@functools.lru_cache(maxsize=4)
def sglang_architectures(root: Path | None = None) -> frozenset[str] | None:
    root = root or _package_dir("sglang")
    models = root / "srt" / "models" if root else None
    if models is None or not models.is_dir():
        return None
    names: set[str] = set()
    for file in models.glob("*.py"):
        for match in _SGLANG_ENTRY.finditer(_read(file)):
            names.update(re.findall(r"\w+", match.group(1).replace("[", " ").replace("]", " ")))
    return frozenset(names) or None


_CONFIG_NAME = re.compile(r'\(\s*"([\w-]+)",\s*"\w+Config"\s*\)|^\s*"([\w-]+)":\s*"\w+Config"', re.M)


@functools.lru_cache(maxsize=4)
def transformers_model_types(root: Path | None = None) -> frozenset[str] | None:
    """model_type names of CONFIG_MAPPING_NAMES (in configuration_auto.py; auto_mappings.py from 5.x)."""
    root = root or _package_dir("transformers")
    if root is None:
        return None
    auto = root / "models" / "auto"
    text = _read(auto / "configuration_auto.py") + _read(auto / "auto_mappings.py")
    names = {a or b for a, b in _CONFIG_NAME.findall(text)}
    return frozenset(names) or None
