"""Engine flags as each release spells them, from the tables under ``patterns/flags/``.

A table (one per engine, built by ``enrich.catalog.tools.flagtable`` from the engines' own argument
parsers) gives each flag its aliases, the first and last sampled release that has it, and when it
was deprecated in favour of what. Loaded lazily, once; stdlib and ``packaging`` only; no engine is
imported.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
PLAIN_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
ENGINE_WORDS = {"sglang": re.compile(r"\bsglang\b", re.I), "vllm": re.compile(r"\bvllm\b", re.I)}
# a clause about other releases ("on releases before 0.5.23: --old"): its flags are the old spellings
OTHER_RELEASES = re.compile(r"\breleases?\b|\bolder\b|\bbefore \d|\buntil \d|\bsince \d", re.I)
CLAUSE = re.compile(r"[^;()]+")
# a clause that runs another command: its flags are that command's
OTHER_COMMAND = re.compile(r"\b(?:(?:re)?install|pip|uv|conda|docker|podman|kubectl|hf|huggingface-cli|torchrun|nvidia-smi|git)\b", re.I)


@dataclass(frozen=True)
class Flag:
    name: str
    first: Version
    last: Version
    absent: frozenset[Version]
    aliases: dict[str, tuple[Version, Version]]
    deprecated_since: Version | None
    use: str | None                 # the replacement as the release's help gives it
    defaults: tuple[tuple[Version, object], ...] = ()   # (from release, default), where the table has one

    def has(self, version: Version, spelling: str | None = None) -> bool:
        first, last = self.aliases.get(spelling, (self.first, self.last)) if spelling else (self.first, self.last)
        return first <= version <= last and version not in self.absent

    @property
    def renamed_to(self) -> str | None:
        """The new name when the replacement is one flag taking the same value."""
        return self.use if self.use and PLAIN_FLAG.fullmatch(self.use) else None


@dataclass(frozen=True)
class Table:
    engine: str
    releases: tuple[Version, ...]
    flags: dict[str, Flag]
    spellings: dict[str, tuple[str, ...]]     # any spelling (name or alias) -> flag names

    def lookup(self, spelling: str) -> list[Flag]:
        names = self.spellings.get(spelling)
        if names is None and spelling.startswith("--no-"):       # argparse's BooleanOptionalAction
            names = self.spellings.get("--" + spelling[5:])
        return [self.flags[n] for n in names or ()]


def _v(text: str) -> Version:
    return Version(text)


@functools.lru_cache(maxsize=8)
def table(engine: str) -> Table | None:
    try:
        data = json.loads((resources.files("enrich.patterns") / "flags" / f"{engine}.json").read_text("utf-8"))
    except (OSError, ValueError, ModuleNotFoundError):
        return None
    flags, spellings = {}, {}
    for name, raw in data["flags"].items():
        deprecated = raw.get("deprecated") or {}
        flags[name] = Flag(name, _v(raw["first"]), _v(raw["last"]), frozenset(map(_v, raw.get("absent", ()))),
                           {a: (_v(f), _v(l)) for a, (f, l) in raw.get("aliases", {}).items()},
                           _v(deprecated["since"]) if deprecated else None, deprecated.get("use"),
                           tuple((_v(since), value) for since, value in raw.get("default", {}).items()))
        for spelling in (name, *raw.get("aliases", {})):
            spellings.setdefault(spelling, []).append(name)
    return Table(engine, tuple(map(_v, data["releases"])), flags, {k: tuple(v) for k, v in spellings.items()})


def _version(version) -> Version | None:
    try:
        return version if isinstance(version, Version) else Version(str(version))
    except InvalidVersion:
        return None


def accepted(engine: str, flag: str, version) -> bool:
    """Whether the release parses ``flag`` (deprecated or not)."""
    t, v = table(engine), _version(version)
    return bool(t and v) and any(f.has(v, flag) for f in t.lookup(flag))


def known(engine: str, flag: str, versions_spec=None) -> bool:
    """Whether some sampled release in ``versions_spec`` (a SpecifierSet or its text; None: any) has
    the flag; a range holding no sampled release asks its nearest ones."""
    t = table(engine)
    if t is None:
        return False
    return any(accepted(engine, flag, v) for v in releases_in(engine, versions_spec))


def releases_in(engine: str, versions_spec=None) -> list[Version]:
    t = table(engine)
    if t is None:
        return []
    spec = SpecifierSet(versions_spec) if isinstance(versions_spec, str) else versions_spec
    inside = [v for v in t.releases if spec is None or spec.contains(v, prereleases=True)]
    return inside or list(t.releases)


def deprecated(engine: str, flag: str, version) -> dict | None:
    """``{"since": ..., "use": ...}`` when the release takes the flag but deprecates it."""
    t, v = table(engine), _version(version)
    if not (t and v):
        return None
    for f in t.lookup(flag):
        if f.has(v, flag) and f.deprecated_since is not None and f.deprecated_since <= v:
            return {"since": str(f.deprecated_since), "use": f.use}
    return None


def sampled_release(engine: str, version) -> Version | None:
    """The newest sampled release at or before ``version`` (the oldest sampled one before the table
    begins; the newest when ``version`` is None): the release whose flags stand for ``version``."""
    t, v = table(engine), _version(version) if version is not None else None
    if t is None:
        return None
    if v is None:
        return t.releases[-1]
    older = [r for r in t.releases if r <= v]
    return older[-1] if older else t.releases[0]


def release_spellings(engine: str, version) -> dict[str, Flag]:
    """Every spelling the (sampled) release parses, aliases and deprecated names included."""
    t, v = table(engine), sampled_release(engine, version)
    if t is None or v is None:
        return {}
    return {s: t.flags[names[0]] for s, names in t.spellings.items()
            if any(t.flags[n].has(v, s) for n in names)}


MISSING = object()


def default(engine: str, flag: str, version) -> object:
    """The release's default for ``flag`` (any spelling), or ``MISSING`` where the table has none."""
    t, v = table(engine), sampled_release(engine, version)
    if t is None or v is None:
        return MISSING
    for f in t.lookup(flag):
        known = [value for since, value in f.defaults if since <= v]
        if known:
            return known[-1]
    return MISSING


def spelling(engine: str, flag: str, version) -> str:
    """The spelling ``version`` takes for ``flag``: a renamed flag maps to its new name on releases
    that deprecate the old one, and to its old name on releases from before the new one."""
    t, v = table(engine), _version(version)
    if not (t and v):
        return flag
    for f in t.lookup(flag):                         # renamed: the new name, where this release has it
        if f.renamed_to and f.deprecated_since <= v and accepted(engine, f.renamed_to, v):
            return f.renamed_to
    if accepted(engine, flag, v):
        return flag
    for f in t.lookup(flag):                         # an alias this release spells another way
        for other in (f.name, *f.aliases):
            if other != flag and f.has(v, other):
                return other
    for f in t.flags.values():                      # the old name of a flag renamed later
        if f.renamed_to == flag and f.has(v):
            return f.name
    return flag


def mentions(text: str, engine: str) -> list[tuple[str, str, bool]]:
    """(flag, engine, about other releases) for each engine flag in a fix; the engine is the one the
    clause names, else the entry's own. Flags of another command (pip, docker, hf...) are left out."""
    found = []
    for clause in CLAUSE.finditer(text):
        if OTHER_COMMAND.search(clause.group()):
            continue
        named = [e for e, word in ENGINE_WORDS.items() if word.search(clause.group())]
        other = bool(OTHER_RELEASES.search(clause.group()))
        for flag in FLAG.findall(clause.group()):
            found.append((flag, named[0] if len(named) == 1 else engine, other))
    return found


def for_release(text: str, engine: str, version) -> str:
    """The fix text with each flag the table knows spelled as ``version`` spells it; flags in a
    clause about other releases are left alone."""
    if "--" not in text or table(engine) is None:
        return text
    out, end = [], 0
    for clause in CLAUSE.finditer(text):
        piece = clause.group()
        if not OTHER_RELEASES.search(piece) and not OTHER_COMMAND.search(piece):
            piece = FLAG.sub(lambda m: spelling(engine, m.group(), version), piece)
        out.append(text[end:clause.start()] + piece)
        end = clause.end()
    return "".join(out) + text[end:]


def for_installed(text: str, engine: str) -> str:
    """The fix text spelled for the engine release installed here (unchanged when none is)."""
    if "--" not in text:
        return text
    from enrich.versions import installed_version

    try:
        for name in sorted({engine, *(e for e, word in ENGINE_WORDS.items() if word.search(text))}):
            version = installed_version(name) if table(name) is not None else None
            if version:
                text = for_release(text, name, version)
    except Exception:  # noqa: BLE001 - a fix is better unchanged than lost
        pass
    return text


def replacement_flags(use: str | None) -> list[str]:
    """The flags a replacement names, braces expanded: ``--x-{a,b}=v`` names ``--x-a`` and ``--x-b``."""
    if not use:
        return []
    brace = re.search(r"\{([^{}]*)\}", use)
    if brace:
        return [f for part in brace.group(1).split(",")
                for f in replacement_flags(use[:brace.start()] + part + use[brace.end():])]
    return PLAIN_FLAG.findall(use)


def problems(entry) -> list[str]:
    """Flags of an entry's fixes that no release in its range knows, or that the newest release in
    range deprecates without the fix also naming the new spelling."""
    found = []
    own = entry.distribution if table(entry.distribution) else entry.engine
    for alternatives in entry.fixes:
        for text in alternatives:
            for flag, engine, _other in mentions(text, own):
                if table(engine) is None:
                    continue
                spec = entry.versions if engine == own else None
                in_range = releases_in(engine, spec)
                if not known(engine, flag, spec):
                    found.append(f"fix names {flag}, which no {engine} release in {spec or 'the table'} knows")
                    continue
                gone = deprecated(engine, flag, in_range[-1])
                if gone and not set(replacement_flags(gone["use"])) & set(FLAG.findall(text)):
                    found.append(f"fix names {flag}, deprecated since {engine} {gone['since']}"
                                 f"{' (use ' + gone['use'] + ')' if gone['use'] else ''}, without the new spelling")
    return list(dict.fromkeys(found))
