"""Readable source trees of engine releases, for checking the catalog against what a release raises.

``release(distribution, version)`` gives the installed package when that version is installed,
else the release's wheel fetched with ``pip download --no-deps`` and unpacked under the cache
(``ENRICH_RELEASE_CACHE``, default ``~/.cache/enrich/releases``; several folders may be given,
separated by ``os.pathsep``: all are searched, downloads go to the first). A fetched release is a
folder ``<name>==<version>`` holding the wheel's text files; its shared libraries are kept as
``<lib>.strings`` (printable runs of 6 or more characters), which is what native messages are
checked against. A folder ``<name>-<version>`` holding a whole unpacked wheel (its ``.dist-info``
included) is taken as it is.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

PRINTABLE_RUN = re.compile(rb"[\x20-\x7e\t]{6,}")
SHARED_LIBRARY = re.compile(r"\.(so(\.[\d.]+)?|dylib|pyd)$")
# executables a wheel ships (triton's ptxas): their messages are native too
EXECUTABLE = re.compile(r"(^|/)bin/[^/.]+$")
TEXT_SUFFIXES = {".py", ".pyi", ".txt", ".json", ".yaml", ".yml", ".toml", ".cfg", ".md",
                 ".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".inc", ".jinja"}
MAX_TEXT_FILE = 4 << 20
# Catalog names that are not the name of the package on the registry.
DISTRIBUTIONS = {"flashinfer": "flashinfer-python", "nccl": "nvidia-nccl-cu13"}


class ReleaseError(RuntimeError):
    """A release that cannot be had; the message is one line."""


def canonical(name: str) -> str:
    name = re.sub(r"[-_.]+", "-", name).lower()
    return DISTRIBUTIONS.get(name, name)


def cache_dirs() -> list[Path]:
    configured = os.environ.get("ENRICH_RELEASE_CACHE")
    if configured:
        return [Path(p).expanduser() for p in configured.split(os.pathsep) if p]
    return [Path("~/.cache/enrich/releases").expanduser()]


@dataclass(frozen=True)
class Release:
    distribution: str
    version: str
    root: Path                    # the folder file paths are relative to (site-packages for installed)
    files: tuple[Path, ...]       # relative paths of the release's files
    installed: bool = False

    def __str__(self) -> str:
        return f"{self.distribution} {self.version}"

    def python_files(self) -> Iterator[Path]:
        return (self.root / f for f in self.files if f.suffix == ".py")

    def text_files(self) -> Iterator[Path]:
        return (self.root / f for f in self.files if f.suffix in TEXT_SUFFIXES)

    def native_strings(self) -> Iterator[tuple[Path, str]]:
        """(library, its printable runs joined by newlines) for each shared library."""
        for f in self.files:
            path = self.root / f
            if f.name.endswith(".strings"):
                yield path.with_suffix(""), path.read_text(encoding="utf-8", errors="replace")
            elif SHARED_LIBRARY.search(f.name) or EXECUTABLE.search(f.as_posix()):
                yield path, library_strings(path)

    def packages(self) -> set[str]:
        """Top-level import names the release ships."""
        return {f.parts[0].removesuffix(".py") for f in self.files
                if f.parts and (f.suffix == ".py" or len(f.parts) > 1) and not f.parts[0].endswith((".dist-info", ".data"))}


def release(distribution: str, version: str, fetch: bool = True) -> Release:
    """The release's source: installed, cached, or (when ``fetch``) downloaded now."""
    name = canonical(distribution)
    found = installed(name)
    if found is not None and found.version == version:
        return found
    for directory in cache_dirs():
        folder = directory / f"{name}=={version}"
        if folder.is_dir():
            return _cached(name, version, folder)
        unpacked = directory / f"{name}-{version}"
        if any(unpacked.glob("*.dist-info")):
            return _cached(name, version, unpacked)
    if not fetch:
        raise ReleaseError(f"{name} {version} is neither installed nor in the release cache ({cache_dirs()[0]})")
    return _cached(name, version, download(name, version))


def cached_or_installed(distribution: str, version: str) -> Release | None:
    try:
        return release(distribution, version, fetch=False)
    except ReleaseError:
        return None


@functools.lru_cache(maxsize=64)
def installed(distribution: str) -> Release | None:
    from importlib.metadata import PackageNotFoundError, distribution as find
    try:
        dist = find(canonical(distribution))
    except PackageNotFoundError:
        return None
    root = Path(dist.locate_file(""))
    files = tuple(Path(str(f)) for f in dist.files or () if not str(f).startswith(".."))
    return Release(canonical(distribution), dist.version, root, files, installed=True)


@functools.lru_cache(maxsize=64)
def _cached(name: str, version: str, folder: Path) -> Release:
    files = tuple(p.relative_to(folder) for p in sorted(folder.rglob("*")) if p.is_file())
    return Release(name, version, folder, files)


def download(name: str, version: str) -> Path:
    """Fetch the wheel of ``name==version`` and unpack its text and library strings into the cache."""
    target = cache_dirs()[0] / f"{name}=={version}"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as scratch:
        wheel = _pip_download(name, version, Path(scratch))
        partial = Path(scratch) / "tree"
        unpack(wheel, partial)
        partial.rename(target)
    return target


def _pip_download(name: str, version: str, into: Path) -> Path:
    base = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
            f"{name}=={version}", "-d", str(into)]
    attempts = [["--only-binary", ":all:"],
                # no wheel for this interpreter: any Linux x86-64 wheel will do, its text is the same
                ["--only-binary", ":all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.10",
                 "--implementation", "cp"]]
    last = ""
    for extra in attempts:
        done = subprocess.run(base + extra, capture_output=True, text=True)
        wheels = sorted(into.glob("*.whl"))
        if done.returncode == 0 and wheels:
            return wheels[0]
        last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
    raise ReleaseError(f"cannot fetch {name} {version}: {last}")


def unpack(wheel: Path, into: Path) -> None:
    """The wheel's text files as they are, its shared libraries as ``.strings`` files."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            member = Path(info.filename)
            if info.is_dir() or ".." in member.parts or member.is_absolute():
                continue
            if SHARED_LIBRARY.search(member.name) or EXECUTABLE.search(member.as_posix()):
                out = into / member.parent / (member.name + ".strings")
                out.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as stream:
                    out.write_text(_strings(stream.read()), encoding="utf-8")
            elif member.suffix in TEXT_SUFFIXES and info.file_size <= MAX_TEXT_FILE:
                out = into / member
                out.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as stream, open(out, "wb") as sink:
                    shutil.copyfileobj(stream, sink)


def _strings(data: bytes) -> str:
    return "\n".join(m.group().decode("ascii") for m in PRINTABLE_RUN.finditer(data))


def library_strings(path: Path) -> str:
    """Printable runs of a shared library, cached under the release cache by path, size and mtime."""
    stat = path.stat()
    key = hashlib.sha256(f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    cached = cache_dirs()[0] / ".strings" / f"{path.name}-{key}.txt"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    text = _strings(path.read_bytes())
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(text, encoding="utf-8")
    except OSError:
        pass
    return text


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
