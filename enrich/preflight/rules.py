"""Evaluate the catalog's ``[entry.predict]`` rules over the facts of one launch.

A rule's values are looked up by path; the entry's own ``derive`` runs on them, then the rule's
``derive`` (which may narrow a suggestion to what passes every rule), then ``when``: a result
other than None is a finding, rendered through the same templates the entry uses after a crash.
Suggested parallel sizes are re-checked: ``verified.tp`` / ``verified.ep`` are the sizes for which
no rule fails, found by re-running every rule with that size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from enrich.capture import MAX_DERIVED, MAX_TEXT, display
from enrich.catalog.schema import Derived, Entry, Predict
from enrich.explain import first_rendered, render
from enrich.guard import fail_open
from enrich.catalog import derive
from enrich.catalog import flags as flag_tables
from enrich.catalog.derive import HELPERS
from enrich.preflight.facts import Facts
from enrich.preflight.shape import NOT_APPLICABLE

MAX_CANDIDATE = 128
# The order in which an engine meets the problems at start-up: the first one is the one it reports.
STAGES = ("config", "distributed", "model-load", "attention-patching", "kernel-launch", "memory", "kv-cache", "startup")


@dataclass
class Finding:
    id: str
    title: str
    severity: str
    summary: str
    fixes: list[str]
    values: dict[str, str]
    check: str                       # what the rule found, in numbers ("28 % 8 = 4")
    component: str = ""
    resolution: str | None = None

    def as_json(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in self.__dataclass_fields__}
        if data["resolution"] is None:
            del data["resolution"]
        return data


@dataclass
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)   # "ID: needs gpu.capability (--gpu NAME)"

    @property
    def failing(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


_HINTS = {"gpu": "a GPU (NVML, --gpu NAME or --gpu-memory GIB)", "plan": "the memory plan (a GPU and the weight size)",
          "engine": "the installed engine's registry", "host": "this host"}


def _applies(entry: Entry, rule: Predict, facts: Facts) -> bool:
    if facts.engine not in rule.engines:
        return False
    version = facts.version
    if version is None:
        return True
    if rule.versions is not None and not rule.versions.contains(version, prereleases=True):
        return False
    if entry.versions is not None and entry.distribution == facts.engine:
        return entry.versions.contains(version, prereleases=True)
    return True


def _lookup(rule: Predict, facts: Facts) -> tuple[dict[str, Any], dict[str, str]]:
    raw: dict[str, Any] = dict(rule.const)
    missing: dict[str, str] = {}
    for name, paths in rule.values.items():
        for path in paths:
            value = facts.get(path)
            if value is not None:
                raw[name] = value
                break
        else:
            missing[name] = paths[0]
    return raw, missing


def _derive(specs: dict[str, Derived], raw: dict[str, Any], drop_empty: bool) -> None:
    # a re-checked suggestion that nothing survives is dropped: the plainer template is used instead
    derive.apply(specs, raw, drop_empty=drop_empty, absent=lambda value: value is None or value is NOT_APPLICABLE)


def evaluate_rule(entry: Entry, rule: Predict, facts: Facts, outcome: Outcome, render_it: bool = True) -> Finding | None:
    raw, missing = _lookup(rule, facts)
    needed = rule.when.args
    inputs = _inputs(needed, {**entry.derive, **rule.derive})
    if any(raw.get(a) is NOT_APPLICABLE for a in inputs):
        return None
    absent = [a for a in inputs if a in missing]
    if absent:
        path = missing[absent[0]]
        hint = _HINTS.get(path.split(".")[0], path)
        outcome.unchecked.append(f"{entry.id}: not checked, needs {path} ({hint})")
        return None
    _derive(entry.derive, raw, drop_empty=False)
    _derive(rule.derive, raw, drop_empty=True)
    args = [raw.get(a) for a in needed]
    if any(a is None or a is NOT_APPLICABLE for a in args):
        return None
    check = None
    with fail_open(f"helper {rule.when.helper}"):
        check = HELPERS[rule.when.helper](*args)
    if check is None:
        return None
    if not render_it:
        return Finding(entry.id, entry.title, rule.severity, "", [], {}, str(check), entry.component)
    shown = {name: display(value, name, MAX_DERIVED if name in entry.derive or name in rule.derive else MAX_TEXT)
             for name, value in raw.items() if value is not NOT_APPLICABLE}
    fixes = [text for text in (first_rendered(alts, shown) for alts in entry.fixes) if text]
    fixes = fixes or [render(alts[-1], shown, missing="?") for alts in entry.fixes]
    return Finding(
        id=entry.id, title=entry.title, severity=rule.severity,
        summary=first_rendered(entry.summary, shown) or entry.title,
        # flags spelled as the launch's release spells them, from the same tables the parser reads
        fixes=[flag_tables.for_release(text, facts.engine, facts.version) for text in fixes] if facts.version else fixes,
        values=shown, check=str(check), component=entry.component, resolution=getattr(entry, "resolution", None))


def _inputs(names: tuple[str, ...], derive: dict[str, Derived]) -> list[str]:
    """The values a check depends on, through the derived values it uses."""
    seen: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        if name in derive:
            todo += list(derive[name].args)
    return seen


def predicted_entries(entries) -> list[Entry]:
    return [e for e in entries if e.predict]


def evaluate(entries: list[Entry], facts: Facts, render_it: bool = True) -> Outcome:
    """Every applicable rule; one finding per entry (its first rule that fires)."""
    outcome = Outcome()
    if render_it:
        facts.verifier = _Verifier(entries)
    for entry in entries:
        for rule in entry.predict:
            if not _applies(entry, rule, facts):
                continue
            finding = evaluate_rule(entry, rule, facts, outcome, render_it)
            if finding is not None:
                outcome.findings.append(finding)
                break
    # in the order the engine meets them at start-up; within a stage, the certain ones first
    outcome.findings.sort(key=lambda f: (STAGES.index(f.component) if f.component in STAGES else 99, f.severity != "error"))
    return outcome


class _Verifier:
    """verified.tp / verified.ep: sizes with which no rule fails (computed once per launch)."""

    ARG = {"tp": "tp", "ep": "ep"}

    def __init__(self, entries: list[Entry]):
        self.entries, self.cache = entries, {}

    def __call__(self, facts: Facts, what: str) -> list[int] | None:
        if what not in self.ARG:
            return None
        if what not in self.cache:
            self.cache[what] = [size for size in self._candidates(facts, what)
                                if not evaluate(self.entries, facts.with_args(**{self.ARG[what]: size}),
                                                render_it=False).failing]
        return self.cache[what]

    @staticmethod
    def _candidates(facts: Facts, what: str) -> range:
        args = facts.launch.args
        current = args.get(what) or 1
        gpus = facts.gpu.count if facts.gpu is not None and facts.gpu.count else None
        if what == "ep":
            limit = (args.get("tp") or 1) * (args.get("dp") or 1)
        else:
            limit = max(gpus or current, current)
        return range(1, min(limit, MAX_CANDIDATE) + 1)
