"""``enrich catalog verify``: prove that each entry can fire in the engine releases it claims.

For each entry and each release of its distribution that is pinned (named in its file's header
comment, within the entry's ``versions``), installed, or asked for with ``--release``:

- every literal run of its message pattern is in that release's source: a Python string literal
  or f-string piece, or, for native messages, the strings of its shared libraries (for a pattern
  that is one alternation, one alternative whose runs are all there suffices); an entry that also
  matches by its raise line (``source``: a bare ``assert``) needs only a line of the source that
  its pattern matches;
- every raise site (``module:qualname`` glob) of the release's packages exists;
- every engine flag its fixes name is parsed by that release, and every environment variable of
  the release's family (``VLLM_*``, ``SGLANG_*``...) appears in its source, unless the fix gives
  the spelling of other releases in a clause of its own and that spelling is there.

What a release's source offers is read once (``ast``; nothing is imported) and kept beside the
release cache.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import gzip
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from enrich.catalog import Catalog, Entry, get_catalog
from enrich.catalog import flags as flag_tables
from enrich.catalog.regex import literal_runs
from enrich.catalog.releases import (Release, ReleaseError, cache_dirs, canonical, installed, release)

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

CORPUS_FORMAT = 2
KNOWN_DISTRIBUTIONS = ("sglang", "vllm", "torch", "triton", "transformers", "mlx-lm", "mlx", "flashinfer-python",
                       "nvidia-nccl-cu13", "nvidia-nccl-cu12")
HEADER_RELEASE = re.compile(
    r"\b(sglang|vllm|torch|triton|transformers|mlx[-_]lm|mlx|flashinfer(?:-python)?|nvidia-nccl(?:-cu1[23])?)"
    r" v?(\d+(?:\.\d+)+)(?!\+)((?:\s*(?:/|,|and)\s*v?\d+(?:\.\d+)+(?!\+))*)", re.I)
# Where else a distribution's messages may come from: the libraries it loads or calls (read when
# installed). Python's own library and the C library are read for every distribution.
COMPANIONS = {"torch": ("nvidia-nccl-cu13", "nvidia-nccl-cu12"), "transformers": ("huggingface-hub", "tokenizers"),
              "mlx-lm": ("mlx", "transformers", "huggingface-hub"), "sglang": ("sglang-kernel", "sgl-kernel"),
              "vllm": ("torch",)}
# The library a build needs for its native messages; an installed build without it (torch CPU,
# mlx on Linux) cannot show them, and its missing native text is left unchecked, not reported.
FULL_BUILD = {"torch": "libtorch_cuda.so", "mlx": "libmlx.dylib", "sglang": None}
SYSTEM_LIBRARIES = ("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
                    "/lib/x86_64-linux-gnu/libstdc++.so.6")
ENV_PREFIXES = {"vllm": ("VLLM_",), "sglang": ("SGLANG_", "SGL_"), "torch": ("PYTORCH_", "TORCH_"),
                "triton": ("TRITON_",), "transformers": ("TRANSFORMERS_",), "mlx": ("MLX_",),
                "flashinfer-python": ("FLASHINFER_",)}
ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
MIN_RUN = 4          # shorter runs (": ", "=") prove nothing


@dataclass
class Corpus:
    """What one release's source offers: string pieces, library strings, qualnames, names."""

    pieces: str                       # Python string literals and f-string pieces, "\0"-separated
    native: str                       # printable runs of its shared libraries, "\n"-separated
    sites: dict[str, list[str]]       # module -> qualnames of its functions and classes
    names: set[str] = field(default_factory=set)   # ALL_CAPS identifiers and strings (env variables)

    def has_text(self, run: str) -> bool:
        return run in self.pieces or run in self.native


@dataclass(frozen=True)
class Problem:
    entry: str
    release: str
    missing: str

    def __str__(self) -> str:
        return f"{self.entry} @ {self.release}: {self.missing}"


# --- what a release offers ------------------------------------------------------------------------

def _qualnames(tree: ast.Module) -> list[str]:
    found = []

    def walk(body, prefix: str):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                found.append(name)
                inner = name + ("." if isinstance(node, ast.ClassDef) else ".<locals>.")
                walk(node.body, inner)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                walk(getattr(node, "body", []) + getattr(node, "orelse", []) + getattr(node, "finalbody", []), prefix)
    walk(tree.body, "")
    return found


def _module(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def build_corpus(rel: Release) -> Corpus:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # old sources: invalid escape sequences
        return _build_corpus(rel)


def _build_corpus(rel: Release) -> Corpus:
    pieces, sites, names = [], {}, set()
    for relative in rel.files:
        if relative.suffix != ".py":
            continue
        try:
            source = (rel.root / relative).read_text(encoding="utf-8", errors="replace")
            tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue
        sites[_module(relative)] = _qualnames(tree)
        names.update(ENV_VAR.findall(source))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                pieces.append(node.value)
            elif isinstance(node, ast.JoinedStr):
                pieces.extend(v.value for v in node.values if isinstance(v, ast.Constant))
    native = [text for _, text in rel.native_strings()]
    names.update(n for text in native for n in ENV_VAR.findall(text))
    return Corpus("\0".join(pieces), "\n".join(native), sites, names)


def corpus(rel: Release) -> Corpus:
    """The release's corpus, read once and kept under the release cache."""
    where = "installed" if rel.installed else "cached"
    path = cache_dirs()[0] / ".corpus" / f"{rel.distribution}=={rel.version}.{where}.v{CORPUS_FORMAT}.json.gz"
    if path.is_file():
        data = json.loads(gzip.decompress(path.read_bytes()))
        return Corpus(data["pieces"], data["native"], data["sites"], set(data["names"]))
    built = build_corpus(rel)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(json.dumps({"pieces": built.pieces, "native": built.native,
                                                   "sites": built.sites, "names": sorted(built.names)}).encode(), 3))
    except OSError:
        pass
    return built


_corpora: dict[tuple[str, str], Corpus] = {}


def corpus_of(rel: Release) -> Corpus:
    key = (rel.distribution, rel.version)
    if key not in _corpora:
        _corpora[key] = corpus(rel)
    return _corpora[key]


# --- what an entry needs ----------------------------------------------------------------------------

def alternatives(pattern: re.Pattern) -> list[list[str]]:
    """Literal runs each alternative of the pattern needs (one alternative unless it is ``A|B``)."""
    try:
        items = list(sre_parse.parse(pattern.pattern))
    except Exception:  # noqa: BLE001
        return [[]]
    body = [item for item in items if item[0] is not sre_parse.AT]
    if len(body) == 1 and body[0][0] is sre_parse.SUBPATTERN:
        body = list(body[0][1][-1])
    if len(body) == 1 and body[0][0] is sre_parse.BRANCH:
        return [_runs(pattern, list(branch)) for branch in body[0][1][1]]
    return [_runs(pattern, items)]


EDGE = " \t\n,:;.'\"()[]{}=`"


def _runs(pattern: re.Pattern, items) -> list[str]:
    """Literal runs, cut where a message is usually joined from pieces (lines, tabs) and trimmed of
    the punctuation a caller adds around a piece."""
    runs = []
    for run in literal_runs(pattern, items):
        for part in re.split(r"[\0\n\t]", run):
            part = part.strip(EDGE)
            if len(part) >= MIN_RUN:
                runs.append(part)
    return runs


def present(run: str, texts: list[Corpus]) -> bool:
    """The run is in a string, or is pieces of strings with short gaps between them: the values a
    template formats in (``out of resource: {name}, Required: {n}``)."""
    if any(c.has_text(run) for c in texts):
        return True
    covered, gap, i = 0, 0, 0
    words = [m.start() for m in re.finditer(r"(?<![\w])\w", run)] + [len(run)]
    while i < len(run):
        end = next((j for j in sorted({len(run), *words}, reverse=True)
                    if j - i >= 6 and any(c.has_text(run[i:j].strip(EDGE)) for c in texts)), None)
        if end is None:
            nxt = next((w for w in words if w > i), len(run))
            gap, i = gap + nxt - i, nxt
        else:
            covered, i = covered + end - i, end
    return covered > 0 and gap <= 0.4 * len(run)


def check_message(entry: Entry, texts: list[Corpus]) -> list[str]:
    if entry.message is None:
        return []
    best = None
    for runs in alternatives(entry.message):
        missing = [run for run in runs if not present(run, texts)]
        if not missing:
            return []
        if best is None or len(missing) < len(best):
            best = missing
    return [f"message text {run!r} is in no string of the release" for run in best or []]


def source_line_present(entry: Entry, rel: Release) -> bool:
    """A line of the release's Python source matches the entry's raise-line pattern."""
    key = (rel.distribution, rel.version, entry.source.pattern)
    if key not in _source_lines:
        _source_lines[key] = any(entry.source.search(line.strip())
                                 for path in rel.python_files() for line in _lines(path))
    return _source_lines[key]


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


_source_lines: dict[tuple[str, str, str], bool] = {}


def site_exists(site: str, text: Corpus) -> bool:
    module_glob, _, qual_glob = site.partition(":")
    return any(fnmatch.fnmatchcase(q, qual_glob) for m, quals in text.sites.items()
               if fnmatch.fnmatchcase(m, module_glob) for q in quals)


def check_sites(entry: Entry, rel: Release, text: Corpus) -> list[str]:
    """An entry lists the raise sites of several releases: one of those in this release's
    packages must exist here."""
    packages = rel.packages()
    own = [site for site in entry.sites if site.split(".")[0].split(":")[0] in packages]
    if not own or any(site_exists(site, text) for site in own):
        return []
    return [f"none of its raise sites exists: {', '.join(own)}"]


def _parsed_flags(rel: Release) -> set[str] | None:
    from enrich.catalog.tools.flagtable import PARSER_FILES, scan
    if rel.distribution not in PARSER_FILES:
        return None
    try:
        found = scan(rel, rel.distribution)
    except ReleaseError:
        return None
    return {s for name, f in found.items() for s in (name, *f["aliases"])}


_flag_cache: dict[tuple[str, str], set[str] | None] = {}


def check_fixes(entry: Entry, rel: Release, texts: list[Corpus]) -> list[str]:
    missing = []
    key = (rel.distribution, rel.version)
    if key not in _flag_cache:
        _flag_cache[key] = _parsed_flags(rel)
    parsed = _flag_cache[key]
    prefixes = ENV_PREFIXES.get(rel.distribution, ())
    for alternatives_ in entry.fixes:
        for text in alternatives_:
            current = _current_clauses(text)
            if parsed is not None:
                for flag, engine, other_releases in flag_tables.mentions(text, rel.distribution):
                    if engine != rel.distribution or other_releases:
                        continue
                    bare = "--" + flag[5:] if flag.startswith("--no-") else flag
                    if flag in parsed or bare in parsed or spelled_here(flag, text, rel, parsed):
                        continue
                    missing.append(f"flag {flag} is not parsed by this release")
            for name in ENV_VAR.findall(current):
                if (name.startswith(prefixes) and not env_present(name, texts)
                        and not env_spelled_elsewhere(text, current, prefixes, texts)):
                    missing.append(f"environment variable {name} appears nowhere in the release")
    return list(dict.fromkeys(missing))


def spelled_here(flag: str, text: str, rel: Release, parsed: set[str]) -> bool:
    """A flag this release lacks is still fine when rendering spells it the release's way, or when
    the fix gives the spelling of other releases in a clause of its own."""
    if flag_tables.spelling(rel.distribution, flag, rel.version) in parsed:
        return True
    return any(other and f in parsed for f, _, other in flag_tables.mentions(text, rel.distribution))


def env_spelled_elsewhere(text: str, current: str, prefixes: tuple[str, ...], texts: list[Corpus]) -> bool:
    """The fix names, in a clause about other releases, a variable of the family that this release has
    (``X=0 (on releases before 0.5.8: Y=1)``)."""
    current_names = set(ENV_VAR.findall(current))
    return any(name.startswith(prefixes) and name not in current_names and env_present(name, texts)
               for name in ENV_VAR.findall(text))


def env_present(name: str, texts: list[Corpus]) -> bool:
    """Named in the source, or composed there: ``f"TRITON_{binary.upper()}_PATH"`` with the binary
    ``ptxas-blackwell`` makes ``TRITON_PTXAS_BLACKWELL_PATH``."""
    if any(name in c.names for c in texts):
        return True
    head, *middle, tail = name.split("_")
    if not middle:
        return False
    word = "_".join(middle).lower()
    pieces = "\0" + texts[0].pieces + "\0"
    return (f"\0{head}_" in pieces and f"_{tail}\0" in pieces
            and any(f"\0{w}\0" in pieces for w in (word, word.replace("_", "-"))))


def _current_clauses(text: str) -> str:
    """The fix without its clauses about other releases or other commands."""
    return " ".join(c.group() for c in flag_tables.CLAUSE.finditer(text)
                    if not flag_tables.OTHER_RELEASES.search(c.group()))


# --- which releases ---------------------------------------------------------------------------------

def pinned(entry: Entry) -> list[str]:
    """Versions of the entry's distribution that its file's header names."""
    header = _header(entry.file)
    dist = canonical(entry.distribution)
    versions = []
    for m in HEADER_RELEASE.finditer(header):
        if canonical(m.group(1).replace("_", "-")) == dist or (dist == "flashinfer-python" and "flashinfer" in m.group(1).lower()):
            versions.append(m.group(2))
            versions += re.findall(r"\d+(?:\.\d+)+", m.group(3))
    return [v for v in dict.fromkeys(versions) if in_range(entry, v)]


def _header(file: str) -> str:
    from enrich.catalog.loader import catalog_dirs
    for directory in catalog_dirs():
        path = directory.parent / file
        if not path.is_file():
            path = directory / file
        if path.is_file():
            lines = []
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    break
                lines.append(line.lstrip("# "))
            return " ".join(lines)
    return ""


def in_range(entry: Entry, version: str) -> bool:
    try:
        return entry.versions is None or SpecifierSet(str(entry.versions)).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def releases_for(entry: Entry, asked: list[tuple[str, str]], installed_only: bool) -> list[tuple[str, str]]:
    dist = canonical(entry.distribution)
    wanted = [(d, v) for d, v in asked if canonical(d) == dist and in_range(entry, v)]
    here = installed(dist)
    if here is not None and in_range(entry, here.version):
        wanted.append((dist, here.version))
    if not installed_only:
        wanted += [(dist, v) for v in pinned(entry)]
    return list(dict.fromkeys(wanted))


# --- the run ----------------------------------------------------------------------------------------

def verify_entry(entry: Entry, rel: Release) -> tuple[list[Problem], list[Problem]]:
    """(problems, what could not be checked here and why)."""
    text = corpus_of(rel)
    texts = [text, *(corpus_of(c) for c in companions(rel)), system_corpus()]
    unchecked = []
    message = check_message(entry, texts)
    if message and entry.source is not None and source_line_present(entry, rel):
        message = []
    lacking = partial_build(rel)
    if message and lacking:
        unchecked = [Problem(entry.id, str(rel), f"{m} (this build has no {lacking})") for m in message]
        message = []
    missing = message + check_sites(entry, rel, text) + check_fixes(entry, rel, texts)
    return [Problem(entry.id, str(rel), m) for m in missing], unchecked


def partial_build(rel: Release) -> str | None:
    """The native library this release's full build has and this copy lacks, if any."""
    library = FULL_BUILD.get(rel.distribution)
    if library and not any(f.name == library or f.name == library + ".strings" for f in rel.files):
        return library
    return None


def companions(rel: Release) -> list[Release]:
    """The installed companions of the release's distribution."""
    return [here for here in map(installed, COMPANIONS.get(rel.distribution, ())) if here is not None]


_system: list[Corpus] = []


def system_corpus() -> Corpus:
    """Python's standard library and the C library: messages an engine passes on from them."""
    if not _system:
        import sysconfig
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        files = tuple(p.relative_to(stdlib) for p in stdlib.rglob("*.py")
                      if "site-packages" not in p.parts and "test" not in p.parts[:1])
        import platform
        built = corpus(Release("python", platform.python_version(), stdlib, files))
        native = "\n".join(_library_text(Path(p)) for p in SYSTEM_LIBRARIES)
        _system.append(Corpus(built.pieces, built.native + "\n" + native, {}, built.names))
    return _system[0]


def _library_text(path: Path) -> str:
    from enrich.catalog.releases import library_strings
    try:
        return library_strings(path.resolve())
    except OSError:
        return ""


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    unchecked: list[Problem] = field(default_factory=list)
    checked: list[tuple[str, str]] = field(default_factory=list)        # (entry, release)
    unavailable: dict[str, str] = field(default_factory=dict)           # release -> why

    def as_json(self) -> dict:
        return {"checked": len(self.checked), "entries": len({e for e, _ in self.checked}),
                "releases": sorted({r for _, r in self.checked}),
                "problems": [p.__dict__ for p in self.problems], "unchecked": [p.__dict__ for p in self.unchecked],
                "unavailable": self.unavailable}


def verify(catalog: Catalog, asked: list[tuple[str, str]] = (), installed_only: bool = False,
           fetch: bool = True, entries: list[str] | None = None) -> Report:
    report = Report()
    opened: dict[tuple[str, str], Release | None] = {}
    for entry in sorted(catalog.entries.values(), key=lambda e: e.id):
        if entries and entry.id not in entries:
            continue
        for dist, version in releases_for(entry, list(asked), installed_only):
            if (dist, version) not in opened:
                try:
                    opened[(dist, version)] = release(dist, version, fetch=fetch)
                except ReleaseError as exc:
                    opened[(dist, version)] = None
                    report.unavailable[f"{dist} {version}"] = str(exc)
            rel = opened[(dist, version)]
            if rel is None:
                continue
            report.checked.append((entry.id, str(rel)))
            problems, unchecked = verify_entry(entry, rel)
            report.problems += problems
            report.unchecked += unchecked
    return report


def parse_release(text: str) -> tuple[str, str]:
    name, sep, version = text.partition("==")
    if not sep or not name or not version:
        raise argparse.ArgumentTypeError(f"expected DIST==VERSION, got {text!r}")
    return canonical(name), version
