"""Pick the catalog entry that explains an exception, and the frame it speaks about.

Keys, strongest first: the raise site (module + qualname of the innermost
frames; line numbers drift, so never the line), the source text at that site,
the message pattern, the exception class (walking the MRO). An entry with a
message pattern must match the message; an entry without one (a bare assert)
must match its site. An entry never claims an error raised at one of its
``not_sites``, and a retired entry matches nothing. The most specific entry wins.
"""

from __future__ import annotations

import fnmatch
import functools
import signal
import sys
from dataclasses import dataclass

from enrich.catalog import Catalog, Entry
from enrich.catalog.regex import captured
from enrich.facts import Facts, Frame, from_text
from enrich.versions import installed_within

SITE_DEPTH = 6          # how far out from the raise point a declared site may be


@dataclass
class Match:
    entry: Entry
    groups: dict[str, str]
    frame: Frame | None          # the frame values are read from
    rank: tuple


def best_match(facts: Facts, catalog: Catalog) -> Match | None:
    found = _best(facts, catalog)
    return found and (signalled(found.groups, catalog) or found)


def signalled(values: dict[str, str], catalog: Catalog) -> Match | None:
    """An error reporting a child's ``exit_code`` of -N, Python's way of saying that signal N
    killed it: the signal's own entry is the cause (-7, a bus error). Not SIGKILL: an engine sends
    it to its own processes when another fails, and the reporting entry's reading of -9 says so."""
    code = values.get("exit_code") or ""
    if not code.startswith("-") or not code[1:].isdigit() or int(code[1:]) == signal.SIGKILL:
        return None
    try:
        name = signal.Signals(int(code[1:])).name
    except ValueError:
        return None
    return _best(from_text("ProcessDied", f"killed by {name} (signal {code[1:]})"), catalog)


def _best(facts: Facts, catalog: Catalog) -> Match | None:
    # An entry that matches at a raise site outranks every message-only match: try those first.
    frames = facts.frames[:SITE_DEPTH]
    for lookup in (lambda: catalog.index.site_candidates(frames),
                   lambda: catalog.index.message_candidates(facts.message)):
        matches = _ranked(lookup(), facts)
        if matches:
            return matches[0]
    return None


def all_matches(facts: Facts, catalog: Catalog) -> list[Match]:
    found = {e.id: e for e in catalog.index.site_candidates(facts.frames[:SITE_DEPTH])}
    found.update((e.id, e) for e in catalog.index.message_candidates(facts.message))
    return _ranked(found.values(), facts)


def _ranked(candidates, facts: Facts) -> list[Match]:
    found = [m for m in (_try(entry, facts) for entry in candidates) if m is not None]
    found.sort(key=lambda m: m.rank, reverse=True)
    return found


def _class_rank(entry: Entry, facts: Facts) -> int | None:
    if not facts.type_name:
        return len(facts.classes) + 8       # unknown (a cut-off traceback): any class, ranked last
    ranks = [facts.classes.index(name) // 2 for name in entry.exceptions if name in facts.classes]
    return min(ranks) if ranks else None


def _site_frame(entry: Entry, facts: Facts) -> tuple[int, Frame] | None:
    for depth, frame in enumerate(facts.frames[:SITE_DEPTH]):
        if sites_at(entry, frame):
            return depth, frame
    return None


def sites_at(entry: Entry, frame: Frame) -> list[str]:
    """The entry's site patterns the frame matches."""
    if frame.textual:   # a printed frame names the function only: compare the last part
        module, _, function = frame.site.partition(":")
        return [pattern for pattern in entry.sites if _text_site_matches(pattern, module, function)]
    return [pattern for pattern in entry.sites if _site_matches(pattern, frame.site)]


@functools.lru_cache(maxsize=4096)
def _text_site_matches(pattern: str, module: str, function: str) -> bool:
    pattern_module, _, qualname = pattern.partition(":")
    last = qualname.rsplit(".", 1)[-1]
    if "." in function:          # IPython prints the qualified name: compare all of it
        return fnmatch.fnmatchcase(module, pattern_module) and fnmatch.fnmatchcase(function, qualname)
    return (fnmatch.fnmatchcase(module, pattern_module)
            and (last == "*" or fnmatch.fnmatchcase(function, last)))


@functools.lru_cache(maxsize=4096)
def _site_matches(pattern: str, site: str) -> bool:
    return pattern == site or ("*" in pattern and fnmatch.fnmatchcase(site, pattern))


def _try(entry: Entry, facts: Facts) -> Match | None:
    if entry.retired is not None:
        return None
    class_rank = _class_rank(entry, facts)
    if class_rank is None or _claimed_elsewhere(entry, facts):
        return None
    at_site = _site_frame(entry, facts) if entry.sites else None
    frame = at_site[1] if at_site else facts.raise_frame
    source_ok = bool(entry.source and frame is not None and frame.source
                     and entry.source.search(frame.source))
    groups: dict[str, str] = {}
    found = entry.message.search(facts.message) if entry.message is not None else None
    weight = entry.literal_weight
    if found is not None:
        groups, weight = captured(found), entry.weight_of(found)
    elif entry.message is not None and not (source_ok and (at_site or not facts.message)):
        # A message that does not fit. Let through: an empty message (a bare assert) with the
        # right raise line, and any message at the right site and line (an assert with text).
        return None
    # known by class and site alone: it needs the site, its raise line if it names one, and a class
    # that was printed (a traceback cut before its type says nothing)
    if entry.message is None and (at_site is None or not source_ok and (entry.source or not facts.type_name)):
        return None
    if entry.require_site and at_site is None:
        return None
    if facts.exception is not None and not _version_ok(entry):
        return None
    depth = at_site[0] if at_site else SITE_DEPTH
    rank = (at_site is not None, source_ok, -depth, weight, -class_rank)
    return Match(entry, groups, frame, rank)


def _claimed_elsewhere(entry: Entry, facts: Facts) -> bool:
    """The error was raised at a site the entry names as not its own, or by a raise statement in
    a package none of its sites belong to (the same words from other code: ColossalAI's divide)."""
    frame = facts.raise_frame
    if frame is None:
        return False
    if entry.sites and _raised_by_another_package(entry, frame):
        return True
    if not entry.not_sites:
        return False
    if frame.textual:
        module, _, function = frame.site.partition(":")
        return any(_text_site_matches(pattern, module, function) for pattern in entry.not_sites)
    return any(_site_matches(pattern, frame.site) for pattern in entry.not_sites)


def _raised_by_another_package(entry: Entry, frame: Frame) -> bool:
    """The frame raised the error itself (a raise or assert statement, not a call into native
    code) in a package that none of the entry's sites is in."""
    module = frame.site.partition(":")[0]
    owners = entry.site_packages
    package = module.split(".", 1)[0]
    if "." not in module or "*" in owners or package in owners or package in sys.stdlib_module_names:
        return False
    return (frame.source or "").lstrip().startswith(("raise ", "assert "))


def _version_ok(entry: Entry) -> bool:
    return installed_within(entry.distribution, entry.versions)
