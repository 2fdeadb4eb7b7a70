"""Catalog entries: the schema, and validation that names the file and field at fault.

An entry file is TOML: optional file-wide defaults (``engine``, ``component``,
``resolution``, ``versions``) and an array of ``[[entry]]`` tables. See docs/catalog.md.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from typing import Any

from enrich.capture import PATH
from enrich.catalog.regex import alternative_runs, branches, group_names, literal_runs
from enrich.catalog.resolution import NAMES as RESOLUTIONS

COMPONENTS = ("model-load", "attention-patching", "kernel-launch", "kv-cache", "memory",
              "distributed", "config", "startup")
ID = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$")
SITE = re.compile(r"^[A-Za-z_*][\w.*]*:[A-Za-z_*<][\w.<>*]*$")
NAME = re.compile(r"^[A-Za-z_]\w*$")
DOTTED_CLASS = re.compile(r"^(?:[a-z_]\w*\.)+[A-Z]\w*$")      # a class with its module: torch.OutOfMemoryError


class CatalogError(ValueError):
    """A catalog file or entry that cannot be used; says which file and field."""

    def __init__(self, file: str, field: str, problem: str):
        self.file, self.field, self.problem = file, field, problem
        super().__init__(f"{file}: {field}: {problem}")


@dataclass(frozen=True)
class Sample:
    message: str
    origin: str                      # "real run: <test>" or "reported: <url>"
    site: str | None = None          # module:qualname of the raise frame, when known
    source: str | None = None        # the raise line, when known
    exception: str | None = None     # defaults to the entry's first class


@dataclass(frozen=True)
class Derived:
    helper: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Predict:
    """One rule that predicts the entry's failure before the engine starts (see docs/preflight.md)."""

    when: Derived                    # a helper over the values: a result other than None means "it will fail"
    values: dict[str, tuple[str, ...]]   # name -> fact paths (config.x, args.y, gpu.z...), first present wins
    const: dict[str, Any] = field(default_factory=dict)
    derive: dict[str, Derived] = field(default_factory=dict)   # after the entry's own derive; may re-check its names
    engines: tuple[str, ...] = ()    # the launch engines it applies to
    severity: str = "error"          # "warning": the failure is likely, not certain
    versions: Any = None             # the launch engine's releases this rule holds for (SpecifierSet)


@dataclass(frozen=True)
class InText:
    """Words that are the entry's error only in a text that shows its program at work: FlashInfer's
    JIT build failing in nvcc's or ninja's own words, which name no FlashInfer path."""

    shows: re.Pattern                # the program's name or other marks anywhere in the text
    message: re.Pattern              # searched in each line of such a text
    names: tuple[str, ...] = ()      # the program's names, as the catalog gives them
    marks: str | None = None         # its other marks, as the catalog gives them


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    engine: str
    component: str
    exceptions: tuple[str, ...]
    meaning: str
    causes: tuple[str, ...]
    summary: tuple[str, ...]         # alternatives: the first whose fields are all known is used
    fixes: tuple[tuple[str, ...], ...]   # each fix: alternatives, the first whose fields are known is used
    samples: tuple[Sample, ...]
    message: re.Pattern | None = None
    sites: tuple[str, ...] = ()
    source: re.Pattern | None = None
    require_site: bool = False       # a message too generic to trust without its raise site
    wrapper: bool = False            # wraps another error: the wrapped one is explained in its place
    warned: bool = False             # its words printed as a Python warning still mean the run failed
    example: tuple[str, str] | None = None   # (failing, fixed): a command, config or code, before and after
    versions: Any = None             # packaging SpecifierSet
    capture: dict[str, tuple[str, ...]] = field(default_factory=dict)   # name -> paths, first present wins
    derive: dict[str, Derived] = field(default_factory=dict)
    links: tuple[str, ...] = ()
    condition: str | None = None     # the condition that raises, from the source (or the library's check, for native code)
    not_sites: tuple[str, ...] = ()  # raise sites whose errors this entry must not claim, though the message fits
    retired: str | None = None       # why the entry is no longer matched; its ID is never reused
    file: str = ""
    distribution: str = ""           # the package ``versions`` is about; the engine's name if not given
    resolution: str = ""             # what an orchestrator should do: one of enrich.catalog.resolution.NAMES
    predict: tuple[Predict, ...] = ()
    in_text: InText | None = None    # read by `enrich explain` only, in a text that shows the program
    titled: re.Pattern | None = None  # read by `enrich explain` only: the words an issue's title names the error by
    not_after: re.Pattern | None = None  # read by `enrich explain` only: a lead-in on the message's line that says another program reports it
    context: re.Pattern | None = None    # read by `enrich explain` only: what a text must also hold for the words to be this entry's
    class_alone: tuple[str, ...] = ()    # read by `enrich explain` only: classes that, printed with their module and no message, are this error

    @functools.cached_property
    def site_packages(self) -> frozenset[str]:
        """The top-level packages of the raise sites ("*" for a site in any package)."""
        return frozenset(site.partition(":")[0].split(".", 1)[0] for site in self.sites)

    @functools.cached_property
    def literal_weight(self) -> int:
        """How much fixed text the message pattern demands: a tie-breaker for specificity."""
        return _weight(literal_runs(self.message)) if self.message else 0

    @functools.cached_property
    def _alternatives(self) -> tuple[tuple[re.Pattern, int], ...]:
        """Each alternative of a pattern that is one alternation at the top, with its weight."""
        parts, runs = branches(self.message.pattern), alternative_runs(self.message)
        if len(parts) < 2 or len(parts) != len(runs):
            return ()
        try:
            return tuple((re.compile(part, self.message.flags), _weight(r)) for part, r in zip(parts, runs))
        except re.error:
            return ()

    def weight_of(self, found: re.Match) -> int:
        """The literal weight of the alternative that matched: an alternation's top level holds
        no literal run, so its weight alone would rank the entry below any plain pattern."""
        for alternative, weight in self._alternatives:
            m = alternative.match(found.string, found.start())
            if m is not None and m.end() == found.end():
                return weight
        return self.literal_weight


def _weight(runs: list[str]) -> int:
    return sum(len(run.replace("\0", "")) for run in runs)


class _Reader:
    """Typed access to one TOML table; every problem names its field path."""

    def __init__(self, file: str, path: str, table: dict):
        self.file, self.path, self.table = file, path, table

    def fail(self, key: str, problem: str) -> CatalogError:
        return CatalogError(self.file, f"{self.path}.{key}" if key else self.path, problem)

    def str(self, key: str, required: bool = True, pattern: re.Pattern | None = None) -> str | None:
        value = self.table.get(key)
        if value is None:
            if required:
                raise self.fail(key, "is required")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, got {type(value).__name__}")
        if pattern is not None and not pattern.match(value):
            raise self.fail(key, f"{value!r} does not match {pattern.pattern}")
        return value

    def strs(self, key: str, required: bool = False, pattern: re.Pattern | None = None) -> tuple[str, ...]:
        value = self.table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(key, "must be a string or a list of non-empty strings")
        if required and not value:
            raise self.fail(key, "needs at least one item")
        for i, item in enumerate(value):
            if pattern is not None and not pattern.match(item):
                raise self.fail(f"{key}[{i}]", f"{item!r} does not match {pattern.pattern}")
        return tuple(value)

    def regex(self, key: str) -> re.Pattern | None:
        text = self.str(key, required=False)
        if text is None:
            return None
        try:
            return re.compile(text)
        except re.error as exc:
            raise self.fail(key, f"invalid regular expression: {exc}") from None

    def table_of(self, key: str) -> dict:
        value = self.table.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        return value

    def only(self, allowed: set[str]) -> None:
        unknown = sorted(set(self.table) - allowed)
        if unknown:
            raise self.fail(unknown[0], f"unknown field (known: {', '.join(sorted(allowed))})")

    def tables(self, key: str) -> list[dict]:
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, "must be an array of tables")
        return value


_KNOWN = {"id", "title", "engine", "distribution", "component", "resolution", "versions", "wrapper", "example", "match", "capture", "derive",
          "meaning", "condition", "causes", "summary", "fixes", "links", "samples", "predict", "retired"}


def parse_entry(file: str, index: int, table: dict, defaults: dict, helpers: dict) -> Entry:
    r = _Reader(file, f"entry[{index}]", {**defaults, **table})
    unknown = sorted(set(table) - _KNOWN)
    if unknown:
        raise r.fail(unknown[0], "unknown field")
    entry_id = r.str("id", pattern=ID)
    r.path = f"entry[{index}] ({entry_id})"
    component = r.str("component")
    if component not in COMPONENTS:
        raise r.fail("component", f"{component!r} is not one of {', '.join(COMPONENTS)}")
    resolution = r.str("resolution")
    if resolution not in RESOLUTIONS:
        raise r.fail("resolution", f"{resolution!r} is not one of {', '.join(RESOLUTIONS)}")

    m = _Reader(file, f"{r.path}.match", r.table_of("match"))
    m.only({"exceptions", "message", "sites", "not_sites", "source", "require_site", "warned", "in_text", "titled",
            "not_after", "context", "class_alone"})
    message, sites, source = m.regex("message"), m.strs("sites", pattern=SITE), m.regex("source")
    titled, not_after, context = m.regex("titled"), m.regex("not_after"), m.regex("context")
    not_sites = m.strs("not_sites", pattern=SITE)
    class_alone = m.strs("class_alone", pattern=DOTTED_CLASS)
    require_site = m.table.get("require_site", False)
    if not isinstance(require_site, bool) or (require_site and not sites):
        raise m.fail("require_site", "must be true or false, and true only with sites")
    warned = _flag(m, "warned")
    exceptions = m.strs("exceptions", required=True)
    if message is None and not sites:
        raise m.fail("", "needs a message pattern or raise sites (a bare assert is known by its site)")

    capture = {}
    for name, paths in r.table_of("capture").items():
        paths = [paths] if isinstance(paths, str) else paths
        if (not NAME.match(name) or not isinstance(paths, list) or not paths
                or not all(isinstance(p, str) and PATH.match(p) for p in paths)):
            raise r.fail(f"capture.{name}", "must map a name to frame paths like self.attn_tp_size")
        capture[name] = tuple(paths)

    known = set(capture) | group_names(message)
    in_text = _in_text(m, known)
    derive: dict[str, Derived] = {}
    helper_inputs = known | {"message"}   # helpers may also read the whole message
    for name, spec in r.table_of("derive").items():
        d = _Reader(file, f"{r.path}.derive.{name}", spec if isinstance(spec, dict) else {})
        d.only({"helper", "args"})
        helper = d.str("helper")
        if helper not in helpers:
            raise d.fail("helper", f"unknown helper {helper!r}")
        args = d.strs("args")
        missing = [a for a in args if a not in helper_inputs]
        if missing:
            raise d.fail("args", f"{missing[0]!r} is not captured, derived earlier or a message group")
        derive[name] = Derived(helper, args)
        known.add(name)
        helper_inputs.add(name)

    summary = r.strs("summary", required=True)
    raw_fixes = r.table.get("fixes")
    if not isinstance(raw_fixes, list) or not raw_fixes:
        raise r.fail("fixes", "needs at least one fix (a string, or a list of alternatives)")
    fixes = tuple(_Reader(file, f"{r.path}.fixes", {str(i): f}).strs(str(i), required=True)
                  for i, f in enumerate(raw_fixes))
    for key, templates in [("summary", summary)] + [(f"fixes[{i}]", alts) for i, alts in enumerate(fixes)]:
        for i, template in enumerate(templates):
            for name in template_fields(template, r.fail, f"{key}[{i}]"):
                if name not in known:
                    raise r.fail(f"{key}[{i}]", f"{{{name}}} is not captured, derived or a message group")

    samples = []
    for i, s in enumerate(r.tables("samples")):
        sr = _Reader(file, f"{r.path}.samples[{i}]", s)
        sr.only({"message", "origin", "site", "source", "exception"})
        message_text = s.get("message")
        if not isinstance(message_text, str):
            raise sr.fail("message", "must be a string (empty for a bare assert)")
        samples.append(Sample(message=message_text, origin=sr.str("origin"), site=sr.str("site", required=False, pattern=SITE),
                              source=sr.str("source", required=False), exception=sr.str("exception", required=False)))
    if not samples:
        raise r.fail("samples", "needs at least one real message sample")
    retired = r.str("retired", required=False)

    return Entry(
        id=entry_id, title=r.str("title"), engine=r.str("engine"), component=component,
        exceptions=exceptions, meaning=r.str("meaning"), causes=r.strs("causes", required=True),
        summary=summary, fixes=fixes, samples=tuple(samples), message=message, sites=sites,
        source=source, require_site=require_site, warned=warned, versions=_versions(r), capture=capture, derive=derive,
        links=r.strs("links"), condition=r.str("condition", required=False), not_sites=not_sites, retired=retired,
        file=file, wrapper=_flag(r, "wrapper"), example=_example(r), distribution=r.str("distribution", required=False) or r.str("engine"),
        resolution=resolution,
        predict=_predicts(r, helpers), in_text=in_text, titled=titled, not_after=not_after, context=context,
        class_alone=class_alone,
    )


# A program's name as a word of the text, in any case: not part of a longer name or path
# (sgl-project/sglang, flashinfer-python), a collector's pod or service name ([pod/vllm-7d9f8/vllm],
# sglang-1 |) or a package list's pin (sglang 0.4.1, flashinfer==0.2.5). Words are ASCII, so CJK
# prose may touch the name ("vllm报错").
NAMED = r"(?<![A-Za-z0-9_/-]){}(?![A-Za-z0-9_-]|\]|[A-Za-z0-9_.-]*(?:\s*[:=<>~!]=?\s*|\s+)v?\d)"


def _in_text(m: _Reader, known: set[str]) -> InText | None:
    if "in_text" not in m.table:
        return None
    t = _Reader(m.file, f"{m.path}.in_text", m.table_of("in_text"))
    t.only({"names", "shows", "message"})
    t.str("message")
    names = t.strs("names")
    if not names:
        t.str("shows")               # the program's name or its other marks: one is required
    marks = t.str("shows", required=False)
    try:
        shows = re.compile("|".join(["(?i:" + NAMED.format(re.escape(name)) + ")" for name in names]
                                    + ([marks] if marks else [])))
    except re.error as exc:
        raise t.fail("shows", f"invalid regular expression: {exc}") from None
    message = t.regex("message")
    unknown = sorted(group_names(message) - known)
    if unknown:
        raise t.fail("message", f"group {unknown[0]!r} is not a group of the entry's message or a captured value")
    return InText(shows, message, names, marks)


def template_fields(template: str, fail, key: str) -> list[str]:
    """The plain ``{name}`` fields of a template; anything fancier is refused."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise fail(key, f"bad template: {exc}") from None
    names = []
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if not NAME.match(name) or spec or conversion:
            raise fail(key, f"template field {{{name}}} must be a plain name")
        names.append(name)
    return names


def _versions(r: _Reader):
    text = r.str("versions", required=False)
    if text is None:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return SpecifierSet(text)
    except InvalidSpecifier as exc:
        raise r.fail("versions", str(exc)) from None


def _flag(r: _Reader, key: str) -> bool:
    value = r.table.get(key, False)
    if not isinstance(value, bool):
        raise r.fail(key, "must be true or false")
    return value


def _example(r: _Reader) -> tuple[str, str] | None:
    if "example" not in r.table:
        return None
    e = _Reader(r.file, f"{r.path}.example", r.table_of("example"))
    e.only({"failing", "fixed"})
    return e.str("failing"), e.str("fixed")


FACT_PATH = re.compile(r"^(model|config|vision|args|gpu|plan|engine|host|verified)(\.[A-Za-z_]\w*)+$")
LAUNCH_ENGINES = ("vllm", "sglang")
SEVERITIES = ("error", "warning")


def _derived(reader: _Reader, key: str, spec: Any, helpers: dict, inputs: set[str]) -> Derived:
    d = _Reader(reader.file, f"{reader.path}.{key}", spec if isinstance(spec, dict) else {})
    if not isinstance(spec, dict):
        raise d.fail("", "must be a table { helper = NAME, args = [...] }")
    d.only({"helper", "args"})
    name = d.str("helper")
    if name not in helpers:
        raise d.fail("helper", f"unknown helper {name!r}")
    args = d.strs("args", required=True)
    missing = [a for a in args if a not in inputs]
    if missing:
        raise d.fail("args", f"{missing[0]!r} is not a predict value, a constant or derived earlier")
    return Derived(name, args)


def _predicts(r: _Reader, helpers: dict) -> tuple[Predict, ...]:
    """``[entry.predict]`` (one rule) or ``[[entry.predict]]`` (several)."""
    raw = r.table.get("predict")
    if raw is None:
        return ()
    tables = [raw] if isinstance(raw, dict) else raw
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise r.fail("predict", "must be a table or an array of tables")
    return tuple(_predict(_Reader(r.file, f"{r.path}.predict[{i}]", t), r, helpers)
                 for i, t in enumerate(tables))


def _predict(p: _Reader, entry: _Reader, helpers: dict) -> Predict:
    p.only({"when", "values", "const", "derive", "engines", "severity", "versions"})
    values: dict[str, tuple[str, ...]] = {}
    for name, paths in p.table_of("values").items():
        paths = [paths] if isinstance(paths, str) else paths
        if not NAME.match(name) or not isinstance(paths, list) or not paths or not all(
                isinstance(x, str) and FACT_PATH.match(x) for x in paths):
            raise p.fail(f"values.{name}", f"must map a name to fact paths matching {FACT_PATH.pattern}")
        values[name] = tuple(paths)
    const = p.table_of("const")
    for name, value in const.items():
        if not NAME.match(name) or isinstance(value, (dict, list)):
            raise p.fail(f"const.{name}", "must map a name to a string or a number")
    inputs = set(values) | set(const)
    # the entry's own derive runs first, on whatever of its inputs the prediction supplies
    for name, spec in _entry_derive(entry).items():
        if isinstance(spec, dict) and set(spec.get("args", ())) <= inputs:
            inputs.add(name)
    derive = {}
    for name, spec in p.table_of("derive").items():
        if not NAME.match(name):
            raise p.fail(f"derive.{name}", "must be a plain name")
        derive[name] = _derived(p, f"derive.{name}", spec, helpers, inputs)
        inputs.add(name)
    when = _derived(p, "when", p.table.get("when"), helpers, inputs)
    engines = p.strs("engines") or (entry.table.get("engine"),)
    for i, engine in enumerate(engines):
        if engine not in LAUNCH_ENGINES:
            raise p.fail(f"engines[{i}]", f"{engine!r} is not one of {', '.join(LAUNCH_ENGINES)} "
                                          "(say which engines' launches this rule is for)")
    severity = p.str("severity", required=False) or "error"
    if severity not in SEVERITIES:
        raise p.fail("severity", f"{severity!r} is not one of {', '.join(SEVERITIES)}")
    return Predict(when=when, values=values, const=dict(const), derive=derive, engines=tuple(engines),
                   severity=severity, versions=_versions(p))


def _entry_derive(entry: _Reader) -> dict:
    derive = entry.table.get("derive", {})
    return derive if isinstance(derive, dict) else {}
