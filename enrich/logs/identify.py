"""Name the catalog entry for an exception read from text, however the text came out.

The message is tried as read, then as pastes damage it (tabs turned to spaces, hard wraps),
then the message embedded after a log line's lead-in (``... while processing method
init_device: <message>``). A message cut short matches an entry whose sample starts with what
is there; a traceback cut before its message is identified from its frames and printed raise
line. Those two are marked partial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enrich.catalog import Catalog
from enrich.catalog.regex import WORD, alternative_runs, alternative_words, captured
from enrich.facts import Facts, Frame
from enrich.logs.cut import MIN_LITERAL, cut_match, cut_values, prefixes
from enrich.logs.engines import HIP, ROCM_SEARCH, reported_by_another
from enrich.logs.per_catalog import per_catalog
from enrich.logs.reader import TextException, to_facts
from enrich.match import Match, _claimed_elsewhere, _site_frame, best_match, sites_at

LEADING_SPACES = re.compile(r"^(?: {2,8}|\t)", re.M)
ACTOR_TAG = re.compile(r"^\[[\w.]+=[^\[\]=]*(?:, [\w.]+=[^\[\]=]*)*\] ")   # xoscar's "[address=..., pid=...] "
# the library part that logged it: c10d's "[c10d] " (not ROCm's, whose errors CUDA's entries do not explain)
COMPONENT_TAG = re.compile(r"^\[(?!(?i:hip|rocm)\])[A-Za-z][\w.-]*\] ")
SEPARATOR = re.compile(r": (?=\S)")
# a wrapper whose message is another exception's repr: gradio's Error("OutOfMemoryError('CUDA out ...')")
REPR_INSIDE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\((?P<q>['\"])(?P<message>.+?)(?:(?P=q)\)?)?$", re.S)
DIGITS = re.compile(r"\d+(?:\.\d+)?")
SPACE = re.compile(r"\s+")
PADDING = re.compile(r"(?<=\w) {8,}(?=\w)")
RAISE = re.compile(r"raise ([\w.]+)\(")
# a raise statement's string, to its closing quote or where the line was cut; an f-string's
# placeholders stand for any value ("Received parameters not in model: {extras}" says nothing of
# which parameters, so it is not the entry for quantization's scales and biases alone)
F_STRING = re.compile(r"\(f?[\"'](?P<text>[^\"'\n]+)")
PLACEHOLDER = re.compile(r"\{[^{}\n]*\}")
# a function whose name says it makes one check ("_check_if_gpu_supports_dtype", an attribute
# lookup's __getattr__): what it raises is that check's error (a "_verify_..." or "resolve_..."
# often makes several)
CHECKER = re.compile(r"_*check_|__getattr(?:ibute)?__$")
MAX_EMBEDDED = 6
MIN_CUT = 20          # characters a cut message needs before it may stand for a whole one,
SHORT_CUT = 16        # or, from this many, four words ("CUDA out of memory"; not "The server socket")
SHORT_CUT_WORDS = 4
ELISION = re.compile(r" ?(?:\.{3}|…)")
CUT_MODULE_PATH = re.compile(r"(?:[a-z_]\w*\.)+[a-z_][a-z0-9_]*")    # no class at its end: cut before it


@dataclass
class Identified:
    match: Match
    facts: Facts
    partial: bool       # from a cut message or from frames only


def identify(exc: TextException, catalog: Catalog) -> Identified | None:
    if ROCM_SEARCH.search(exc.message):     # torch built for ROCm, in CUDA's words
        return None
    type_name = "" if exc.kind != "exception" else (exc.inner or exc.type)
    if not exc.message and CUT_MODULE_PATH.fullmatch(type_name):
        type_name = ""          # "triton.compiler.error": the line was cut inside the class's module path
    wrapper = None
    for candidate_type, message, lead in _readings(exc, type_name):
        facts = to_facts(exc, message, candidate_type)
        match = best_match(facts, catalog)
        if match is None or refused_whole(match.entry, message, exc.message) or reported_by_another(match.entry, lead):
            continue
        if not match.entry.wrapper:
            return Identified(match, facts, exc.partial and not exc.message)
        wrapper = wrapper or Identified(match, facts, exc.partial and not exc.message)
    if wrapper is not None:
        return wrapper
    found = (_cut_message(exc, type_name, catalog) or _from_frames(exc, type_name, catalog)
             or _by_type(exc, type_name, catalog))
    if found is None and not exc.message and exc.lead:   # cut before its message: the log line's lead-in says it
        lead = TextException(type="", message=exc.lead, line=exc.line, frames=exc.frames, kind="log")
        found = identify(lead, catalog)
        if found is not None:
            found.partial = True
    return found


def refused_whole(entry, reading: str, message: str) -> bool:
    """The reading is the message's first line, and the entry's pattern says no to the whole: a
    negative lookahead refuses what the lines after it hold (sgl_kernel's report of failed loads
    whose attempt names an undefined symbol is that error, not the report)."""
    return (entry.message is not None and reading != message and message.startswith(reading)
            and "(?!" in entry.message.pattern and entry.message.search(message) is None)


def _readings(exc: TextException, type_name: str):
    """(type, message, the lead-in cut off before it) to try, the message as read first."""
    message = exc.message
    seen = {message}
    yield type_name, message, ""
    variants = []
    bases = (message, message.strip().strip("\"'`"),   # an app may quote str(error)
             ACTOR_TAG.sub("", message, count=1),        # or tag it with where it ran: "[address=..., pid=...] "
             COMPONENT_TAG.sub("", message, count=1))
    for base in dict.fromkeys(bases):
        variants.append(base)
        if "        " in base:
            variants.append(PADDING.sub("", base))     # a terminal's wrap padding left inside words
        if "**" in base:
            variants.append(base.replace("**", ""))    # markdown bold put inside the message
        if "\n" in base:
            variants.append(LEADING_SPACES.sub("\t", base))                 # tabs a paste turned to spaces
            variants.append(" ".join(line.strip() for line in base.splitlines()))   # hard wraps
            variants.append("".join(line.strip("\r") for line in base.splitlines()))   # ...in mid-word
            variants.append(base.split("\n", 1)[0])
    for variant in variants:
        if variant not in seen:
            seen.add(variant)
            yield type_name, variant, ""
    first = message.split("\n", 1)[0]
    rest = message[len(first):]
    inner = REPR_INSIDE.match(first)
    if inner is not None and inner["message"] + rest not in seen:
        seen.add(inner["message"] + rest)
        yield "", inner["message"] + rest, ""
    for n, sep in enumerate(SEPARATOR.finditer(first)):    # a message embedded after a lead-in
        if n >= MAX_EMBEDDED or HIP.search(first, 0, sep.start()):   # ROCm's, in CUDA's words
            break
        embedded = first[sep.end():] + rest
        if embedded not in seen:
            seen.add(embedded)
            yield "", embedded, first[:sep.end()]


def _normal(text: str) -> str:
    return SPACE.sub(" ", DIGITS.sub("#", text)).strip()


@per_catalog
def _samples(catalog: Catalog) -> list[tuple[str, object, int, list[int]]]:
    """(sample, entry, where the entry's pattern starts matching in it, the count of fixed letters
    before each position), samples normalised: a cut text names the entry only if it reaches the
    words the pattern is about (Triton's "PTXAS error: Internal Triton PTX codegen error" heads
    every ptxas failure; what follows tells them apart), and holds enough of the message's fixed
    text, not only a value the sample happens to share ("NCCL error in: /opt/conda/conda-b")."""
    found = []
    for entry in catalog.entries.values():
        for sample in entry.samples:
            if sample.message:
                m = entry.message.search(sample.message) if entry.message is not None else None
                normal = _normal(sample.message)
                found.append((normal, entry, len(_normal(sample.message[:m.start()])) if m else 0,
                              _fixed_counts(sample.message, normal, m)))
    return found


def _fixed_counts(raw: str, normal: str, m: re.Match | None) -> list[int]:
    """For each position of the normalised sample, how many letters before it the pattern fixes
    (outside the values its groups capture)."""
    values = [(len(_normal(raw[:m.start(g)])), len(_normal(raw[:m.end(g)])))
              for g in range(1, (m.re.groups if m else 0) + 1) if m.start(g) >= 0]
    counts = [0]
    for i, c in enumerate(normal):
        counts.append(counts[-1] + (c.isalnum() and not any(a <= i < b for a, b in values)))
    return counts


def _class_ok(entry, facts: Facts) -> bool:
    return not facts.type_name or any(name in facts.classes for name in entry.exceptions)


def _cut_message(exc: TextException, type_name: str, catalog: Catalog) -> Identified | None:
    """A message cut short (mid-line, mid-list, its last words dropped): the one entry whose
    samples start with it, or whose pattern's start matches all of it."""
    first = exc.message.split("\n", 1)[0]
    facts = to_facts(exc, exc.message, type_name)
    embedded = [first[m.end():] for n, m in zip(range(MAX_EMBEDDED), SEPARATOR.finditer(first))]
    elided = ELISION.search(first)         # "Tried to allocate ... etc": the poster left the rest out
    before = [first[:elided.start()]] if elided else []
    untagged = [tag.sub("", first, count=1) for tag in (ACTOR_TAG, COMPONENT_TAG)]   # "[c10d] The client socket has ti"
    for text in dict.fromkeys((exc.message, first, first.strip("\"'`"), *untagged, *embedded, *before)):
        normal = _normal(text.rstrip(".…"))
        if len(normal) < MIN_CUT and (len(normal) < SHORT_CUT or len(normal.split()) < SHORT_CUT_WORDS):
            continue
        entries = {e.id: e for sample, e, reach, fixed in _samples(catalog)
                   if sample.startswith(normal) and reach < len(normal) < len(sample.rstrip(".…"))   # cut, not whole
                   and fixed[len(normal)] - fixed[reach] >= MIN_LITERAL and _class_ok(e, facts)}
        groups = {}
        if not entries:
            for entry in word_candidates(catalog, text):
                m = cut_match(entry.message, text) if _class_ok(entry, facts) else None
                if m is not None:
                    entries[entry.id] = entry
                    groups[entry.id] = cut_values(m)
        entries = {key: e for key, e in entries.items() if not refused_whole(e, text, exc.message)}
        if len(entries) != 1:
            continue
        [entry] = entries.values()
        at_site = _site_frame(entry, facts) if entry.sites else None
        if entry.require_site and at_site is None or _claimed_elsewhere(entry, facts):    # as a whole message is
            continue
        frame = at_site[1] if at_site else facts.raise_frame
        return Identified(Match(entry, groups.get(entry.id) or _groups(entry, text), frame, ()), facts, True)
    return None


def word_candidates(catalog: Catalog, text: str) -> list:
    """Entries whose message pattern demands any word the text holds (a cut message lacks the
    words after its cut, so every entry it might start is a candidate)."""
    index = _word_index(catalog)
    found = {}
    words = set(WORD.findall(text))
    for word in words:
        for entry in index.get(word, ()):
            found[entry.id] = entry
    for entry in catalog.index.unanchored:       # no word demanded: any word it writes ("size mismatch for")
        if words & catalog.index.loose_words[entry.id]:
            found[entry.id] = entry
    return list(found.values())


@per_catalog
def _word_index(catalog: Catalog) -> dict[str, list]:
    index: dict[str, list] = {}
    for entry in catalog.entries.values():
        if entry.message is not None:
            for word in set().union(*alternative_words(entry.message)):
                index.setdefault(word, []).append(entry)
    return index


def _by_type(exc: TextException, type_name: str, catalog: Catalog) -> Identified | None:
    """An exception printed with its full module path whose class only one entry names, an entry
    known by its raise site alone (no message to match) or one that says the class alone is its
    error (``class_alone``: torch.OutOfMemoryError, its message cut away): the class says it, partially."""
    if exc.kind != "exception" or "." not in type_name:
        return None
    bare = type_name.rsplit(".", 1)[-1]
    named = ([e for e in catalog.entries.values() if type_name in e.class_alone and not exc.message.strip()]
             or [e for e in catalog.entries.values() if bare in e.exceptions and e.message is None])
    if len(named) != 1 or named[0].require_site:
        return None
    facts = to_facts(exc, exc.message, type_name)
    return Identified(Match(named[0], {}, facts.raise_frame, ()), facts, True)


def _groups(entry, message: str) -> dict[str, str]:
    """The values a cut message still shows: the pattern's groups up to where the text stops."""
    if entry.message is None:
        return {}
    pattern = entry.message.pattern
    for end in range(len(pattern), 0, -1):
        try:
            m = re.match(pattern[:end], message, entry.message.flags)
        except re.error:
            continue
        if m:
            return captured(m)
    return {}


def _leads(pattern: re.Pattern) -> list[str]:
    """Each alternative's first run of fixed text long enough to tell it (a raise line that holds
    it raises that message)."""
    leads = []
    for runs in alternative_runs(pattern):
        texts = [run.replace("\0", "").strip() for run in runs]
        leads += [text for text in texts if len(text) >= 8][:1]
    return leads


def _from_frames(exc: TextException, type_name: str, catalog: Catalog) -> Identified | None:
    """A traceback cut before its message, or a few letters into it: the entry declared at one of
    its frames whose raise line is the printed one (its source pattern, or its message's leading
    text in the line), or, at the raise frame itself, whose message starts with those letters."""
    stub = exc.message.strip()
    if len(stub) >= MIN_CUT or not exc.frames:
        return None
    facts = to_facts(exc, "", type_name)
    found = []         # (depth of the site frame, entry, frame)
    by_class = []      # the innermost frame is the site and raises a class only this entry names there
    candidates = catalog.index.site_candidates(facts.frames[:6])
    alone_at_innermost = not stub and sum(1 for entry in candidates if sites_at(entry, facts.frames[0])) == 1
    for entry in candidates:
        at_site = _site_frame(entry, facts)
        if at_site is None or not _class_ok(entry, facts):
            continue
        depth, frame = at_site
        source = frame.source or ""
        if stub:      # which of the site's messages it began to print says which entry
            evidence = depth == 0 and entry.message is not None and _starts(entry.message, stub)
        else:
            evidence = (bool(entry.source and source and entry.source.search(source)) or _raises(entry, source)
                        or depth == 0 and (_raises_anything_there(entry, frame)
                                           or alone_at_innermost and _cut_at_a_check(exc, frame)))
            if not evidence and depth == 0 and _raised_class(source) in entry.exceptions:
                by_class.append((entry, frame))
        if evidence:
            found.append((depth, entry, frame))
    if not found and len(by_class) == 1:
        entry, frame = by_class[0]
        return Identified(Match(entry, {}, frame, ()), facts, True)
    if not found:
        return None if stub else _from_unnamed_raise_line(facts, catalog)
    least = min(depth for depth, _, _ in found)
    nearest = [(entry, frame) for depth, entry, frame in found if depth == least]
    if stub and len(nearest) > 1:
        return None       # the letters fit more than one of the site's messages
    entry, frame = nearest[0]
    return Identified(Match(entry, {}, frame, ()), facts, True)


def _cut_at_a_check(exc: TextException, frame: Frame) -> bool:
    """The text stops at the header of the innermost frame, before its source line, in a function
    whose name says it makes one check (``_check_if_gpu_supports_dtype``): at the raise site of one
    entry alone, what it raises there is that entry's error. (An API such as ``all_reduce`` is the
    innermost frame of every error its C++ raises.)"""
    return exc.partial and not frame.source and CHECKER.match(frame.qualname.rpartition(".")[2]) is not None


def _raises_anything_there(entry, frame) -> bool:
    """The entry says that whatever is raised in this code is its error: no message or raise line
    of its own, a site with a wildcard (Triton's front end turns every error while it builds a
    kernel's IR into a CompilationError)."""
    return entry.message is None and not entry.source and any("*" in site for site in sites_at(entry, frame))


def _starts(pattern: re.Pattern, text: str) -> bool:
    return any(prefix.fullmatch(text) for prefix in prefixes(pattern))


def _raised_class(source: str) -> str:
    """The bare class a printed raise statement raises ("raise RuntimeError(error_m" gives RuntimeError)."""
    m = RAISE.match(source)
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def _raises(entry, source: str) -> bool:
    """The printed raise line holds the leading text of one of the entry's messages (a whole
    word of it: "Assertion" is not held by "AssertionError")."""
    return entry.message is not None and bool(source) and any(_holds(source, lead) for lead in _leads(entry.message))


def _holds(source: str, lead: str) -> bool:
    """The raise line holds the lead, or a long lead's start."""
    if len(lead) > 24:              # a long lead's first characters, which may stop mid-word
        return lead[:24] in source
    return re.search(re.escape(lead) + (r"(?!\w)" if lead[-1:].isalnum() else ""), source) is not None


def _from_unnamed_raise_line(facts, catalog: Catalog) -> Identified | None:
    """A raise line printed after frames were cut out, or under a frame whose function was elided
    ("line 227, ..."): the one entry whose raise statement it is, or whose message's leading text
    it holds."""
    frame = facts.frames[0]
    source = frame.source or ""
    if frame.qualname or not source.startswith(("raise ", "assert ")):
        return None
    entries = [entry for entry in raised_by(source, catalog) if _class_ok(entry, facts)]
    if len(entries) != 1:
        return None
    return Identified(Match(entries[0], {}, frame, ()), facts, True)


def raised_by(statement: str, catalog: Catalog) -> list:
    """The entries whose raise or assert statement this is: the ones whose raise line pattern it
    matches, or else those whose message's leading text it holds."""
    stated = [entry for entry in catalog.entries.values() if entry.source and entry.source.search(statement)]
    found = stated or [entry for entry in word_candidates(catalog, statement) if _raises(entry, statement)]
    if len(found) > 1:      # where several hold its leading text, those whose message the string is
        string = F_STRING.search(statement)
        filled = [PLACEHOLDER.sub(value, string["text"]) for value in ("x", "1")] if string else []
        held = [entry for entry in found if entry.message and any(entry.message.search(f) for f in filled)]
        found = held or found
    return found
