"""Every error found in a log, one finding per root cause: repeats counted, the same entry
grouped, wrappers and errors that follow from another folded into it; notes an enriched
process already wrote are read back and win (they carry the live values)."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, field
from typing import IO

from enrich.catalog import Catalog, get_catalog
from enrich.catalog.regex import captured
from enrich.explain import explain
from enrich.model import Enrichment
from enrich.facts import from_text
from enrich.logs.deaths import reported_death
from enrich.logs.engines import Programs
from enrich.logs.identify import identify, refused_whole
from enrich.logs.in_text import in_text_mentions, shown, words_in
from enrich.logs.mentions import TITLE_LINES, Mention, mentions
from enrich.logs.peel import unsplit
from enrich.match import Match, signalled
from enrich.logs.reader import ERROR_LINE, TextException, read_lines, to_facts
from enrich.logs.shell import killed_by, told_of
from enrich.logs.stream import scan
from enrich.redact import redact_text

NEAR = 6             # lines between a message and the traceback printed after it
CHAIN = 8            # links of a chain looked along for the exception that explains its start
AGAIN = 80           # lines within which a cut traceback may be printed again, whole
NCCLCHECK = "NCCL failure "   # an application's report of an NCCL call that failed (nccl-tests' NCCLCHECK)
# a line that tells of memory running out: the signal it tells of followed from that
OUT_OF_MEMORY = re.compile(r"(?i)\bOOM\b|\bout of memory\b")
# a line that tells of a change, not of a death: a pull request's title ("Fix PTX codegen segfaults
# on ..."), its description ("This change adds the signal name (e.g., SIGSEGV) ...")
CHANGE = re.compile(r"(?i)^(?:#+ +)?(?:\[[^\]]*\] *)*(?:fix(?:es|ed)?|add(?:s|ed)?|avoid|prevent|handle)\b"
                    r"|\bthis (?:change|pr|commit|patch)\b")
NCCL_THREAD = re.compile(r"[\w.-]+:\d+:\d+$")    # NCCL's own line prefix, the last tag of a stream
NEXT_WARN = 2        # lines from one NCCL WARN without its host prefix to the next of its thread
MIN_SAME = 16        # characters of a quote that show it reads the message printed on its line
LEADING_TAGS = re.compile(r"^(?:\[[^\]\n]*\] )+")    # "[c10d] ", "[Rank 3] " before a message
PASTE = 1 << 19      # characters: an input this small (a paste) is read whole, every line
QUIET = ("warning", "diagnostic")   # kinds of finding shown only when an entry knows them
# the package whose lookup failed, and the name it looked up ("mlx_vlm.models.gemma4")
MISSING_MODULE = re.compile(r"\bNo module named [\x27\"](\w+)\.[\w.]*?([\w-]+)[\x27\"]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
LAST_ERROR = re.compile(r"\bLast error:\s*$")
# an error that says another one, printed before it, is the real one
REFERS_ABOVE = re.compile(r"(?i)(?:see|check)\b[^.]{0,40}\babove\b|root cause above|above for the root cause"
                          r"|hit an exception|encountered (?:a fatal error|an issue)|died unexpectedly")
# exceptions that carry another process's error
CARRIERS = frozenset({"ProcessRaisedException", "ProcessExitedException", "RayTaskError", "RayActorError",
                      "EngineDeadError", "BrokenProcessPool", "_RemoteTraceback", "RemoteTraceback", "ChildFailedError"})


@dataclass
class Finding:
    exception: str                 # the exception type as written ("" when the traceback was cut)
    message: str
    line: int                      # first line in the input
    count: int = 1
    id: str | None = None
    title: str | None = None
    summary: str | None = None
    fixes: list[str] = field(default_factory=list)
    partial: bool = False
    root_cause: bool = True
    streams: list[str] = field(default_factory=list)
    site: str = ""
    kind: str = "exception"        # "log": an error line that is not an exception; "warning": a native
                                   # warning; "diagnostic": a compiler's error line
    wrapper: bool = False          # its catalog entry says it wraps an error found elsewhere
    generic: bool = False          # not in the catalog: the summary states the raise site's condition
    folded: int = 0                # findings folded into this one (shown with all=True)
    resolution: str | None = None  # what an orchestrator should do (enrich.catalog.resolution)
    values: dict[str, str] = field(default_factory=dict)   # what the text gave the entry's templates

    def as_json(self) -> dict:
        return {"id": self.id, "exception": self.exception or None, "message": self.message, "line": self.line,
                "count": self.count, "fixes": self.fixes, "title": self.title, "summary": self.summary,
                "partial": self.partial, "root_cause": self.root_cause, "streams": self.streams,
                "site": self.site, "kind": self.kind, "generic": self.generic, "folded": self.folded,
                "resolution": self.resolution, "values": self.values}


def findings(stream: IO[str], catalog: Catalog | None = None, all: bool = False) -> list[Finding]:
    """The root causes in the text (every finding, folded ones marked, with ``all``). A paste
    (up to PASTE characters) is also searched for catalog messages quoted anywhere in it; in a
    larger log, the lines read near trigger words say which programs were at work."""
    catalog = catalog or get_catalog()
    head = stream.read(PASTE)
    if len(head) < PASTE:
        found, lines = read_lines(head.splitlines(), paste=True)
        order = {number: i for i, (number, _) in enumerate(lines)}
        whole = unsplit(head)
        read = "\n".join(text for _, text in lines)
        programs = Programs.of(whole, read)
        return group(found, catalog, all, mentions(lines, catalog, programs=programs), order, programs,
                     shown((whole, read), catalog, programs), lines)
    lines = []
    found = scan(_Rejoined(head, stream), lines)
    read = "\n".join(text for _, text in lines)
    programs = Programs.of(read, read)
    return group(found, catalog, all, programs=programs, in_text=shown((read,), catalog, programs), lines=lines)


class _Rejoined:
    """The part already read, then the rest of the stream."""

    def __init__(self, head: str, rest: IO[str]):
        self.head, self.rest = head, rest

    def read(self, size: int = -1) -> str:
        if self.head:
            head, self.head = self.head, ""
            return head
        return self.rest.read(size)


def group(found: list[TextException], catalog: Catalog, all: bool = False,
          quoted: list[Mention] = (), order: dict[int, int] | None = None,
          programs: Programs = Programs(), in_text: list = (),
          lines: list[tuple[int, str]] = ()) -> list[Finding]:
    order = order or {}            # line number -> place among the lines read
    outer = {id(e.led_to) for e in found if e.led_to is not None}
    by_text: dict[tuple, Finding] = {}
    finding_of: dict[int, Finding] = {}
    items: list[Finding] = []
    for exc in found:
        key = _key(exc)
        finding = by_text.get(key)
        if finding is None:
            finding = by_text[key] = _finding(exc, catalog)
            finding.count = 0
            items.append(finding)
        elif finding.id is None and exc.frames:      # printed again with its traceback: the frames may say it
            again = _finding(exc, catalog)
            if again.id:
                again.line, again.count, again.root_cause, again.streams = (finding.line, finding.count,
                                                                              finding.root_cause, finding.streams)
                for seen, f in finding_of.items():
                    if f is finding:
                        finding_of[seen] = again
                items[items.index(finding)] = by_text[key] = finding = again
        finding_of[id(exc)] = finding
        finding.count += exc.repeats
        if id(exc) in outer and finding.count == exc.repeats:
            finding.root_cause = False
        if exc.stream and exc.stream not in finding.streams:
            finding.streams.append(exc.stream)
    _known_in_text(items, in_text, catalog)       # first: a chain's links are weighed by what they are
    _explained_later(found, finding_of)
    _printed_again(found, finding_of)
    items = [f for f in items if f.kind not in QUIET or f.id]   # a warning or a compiler line matters when known
    said = "\n".join(text for _, text in lines)
    _other_engines_copies(items, programs, catalog)      # before quotes are weighed against what was identified
    _out_of_context(items, catalog, said)
    if in_text:
        program_says = in_text_mentions(lines, in_text)
        quoted = sorted([*_not_claimed(quoted, program_says, catalog), *program_says],
                        key=lambda m: order.get(m.line, m.line))
    before = {number: lines[i - 1][1] for i, (number, _) in enumerate(lines) if i}   # the line read before each
    items += _mentioned(quoted, catalog, items, order, before)
    items += _death_reports(lines, items, catalog) or _signals_told(lines, items, catalog)
    _unshown_aborts(items, catalog)
    _disown(items, found, catalog, order)
    _other_engines_copies(items, programs, catalog)
    _out_of_context(items, catalog, said)
    _complete_cut(items, catalog)
    items.sort(key=lambda f: f.line)
    _goes_on_after_a_blank(items, order)
    _fold(items, order)
    if all:
        return items
    return [f for f in items if f.root_cause] or items


def _explained_later(found: list[TextException], finding_of: dict[int, Finding]) -> None:
    """In a chain, the earliest failure is the root, unless an exception raised while handling
    it is one an entry explains and the first is unknown (a refused connection, re-raised by
    urllib3 and requests as the Hub out of reach), or it is the same entry's bare lead-up raised
    just after (a KeyError in a lookup, re-raised as "model type `x` not recognised"), or a bare
    exception known by its site alone (sglang's launcher re-raising its pipe's EOFError with the
    scheduler's exit code): that one says what the first meant."""
    for exc in found:
        early = finding_of[id(exc)]
        later_exc, links = exc.led_to, 0
        bare = exc.kind == "exception" and bool(exc.type) and not exc.message.strip()
        while later_exc is not None and id(later_exc) in finding_of and links < CHAIN:
            later = finding_of[id(later_exc)]
            if (later.id and not later.wrapper and (early.id in (None, later.id) or bare and links == 0)
                    and early is not later):
                later.root_cause, early.root_cause = True, False
                break
            if early.id is not None:      # the same entry's lead-up: only the exception just after it
                break
            later_exc, links = later_exc.led_to, links + 1


def _printed_again(found: list[TextException], finding_of: dict[int, Finding]) -> None:
    """A traceback cut before its message, whose frames a traceback printed soon after (by
    another rank writing the same one in step, or the same one printed whole) also holds, where
    that one is known: a piece of it, not an error of its own."""
    for n, exc in enumerate(found):
        cut = finding_of[id(exc)]
        if exc.kind != "exception" or exc.message.strip() or cut.id or not cut.root_cause:
            continue
        sites = {(f.module, f.qualname) for f in exc.frames}
        for i in range(n + 1, len(found)):
            later = found[i]
            if later.line - exc.line > AGAIN:
                break
            whole = finding_of[id(later)]
            if whole.id and later.message and sites <= {(f.module, f.qualname) for f in later.frames}:
                cut.root_cause = False
                break


def _known_in_text(items: list[Finding], in_text: list, catalog: Catalog) -> None:
    """Errors whose words are an entry's in a text that shows the entry's program: words no entry
    knows alone (torch's ninja CalledProcessError in a log of FlashInfer's JIT), or words another
    engine's entry knows in general (torch's CUDA_HOME check, which FlashInfer's JIT build raised)."""
    for f in items:
        found = words_in(in_text, f"{f.exception}: {f.message}" if f.exception else f.message)
        if found is None:
            continue
        entry, m = found
        if f.id is None or _another_engines(catalog, f.id, entry):
            _explain(f, entry, captured(m), f.message)


def _not_claimed(quoted: list[Mention], program_says: list[Mention], catalog: Catalog) -> list[Mention]:
    """Quotes whose line no entry of another engine claims with its in-text words: in a text that
    shows its program, those words are that program's error (as in _known_in_text)."""
    def claims(said: Mention, m: Mention) -> bool:
        return (said.line == m.line and (said.text in m.text or m.text in said.text)
                and _another_engines(catalog, m.entry_id, catalog.entries[said.entry_id]))
    return [m for m in quoted if not any(claims(said, m) for said in program_says)]


def _another_engines(catalog: Catalog, entry_id: str, entry) -> bool:
    """Whether the catalog entry ``entry_id`` belongs to another engine than ``entry``."""
    known = catalog.entries.get(entry_id)
    return known is not None and known.engine != entry.engine


def _explain(f: Finding, entry, values: dict, text: str) -> None:
    """The finding is the entry's error, with the values its text gave."""
    enrichment = explain(Match(entry, values, None, ()), from_text("", text), "log")
    f.id, f.title, f.summary, f.fixes = entry.id, entry.title, enrichment.summary, list(enrichment.fixes)
    f.wrapper, f.resolution = entry.wrapper, entry.resolution
    f.values = {name: redact_text(str(value)) for name, value in enrichment.values.items()}


def _disown(items: list[Finding], found: list[TextException], catalog: Catalog, order: dict[int, int]) -> None:
    """A message printed without frames, whose traceback follows it, or beside the import error
    of the lookup that raised it: when those frames or that module are a sibling package's of
    the entry's (mlx_audio's or mlx_embeddings' copy of an mlx_lm check), the entry is not it.
    Near is in reading order (a collector that split a long line in pieces adds raw lines)."""
    tracebacks = [(order.get(e.line, e.line), {f.module.split(".", 1)[0] for f in e.frames}) for e in found if e.frames]
    imports = [(order.get(e.line, e.line), m.group(1), m.group(2)) for e in found
               if (m := MISSING_MODULE.search(e.message))]
    for f in items:
        if not f.id or f.site or not catalog.entries[f.id].sites:
            continue
        owner = catalog.entries[f.id].site_packages
        line_at = order.get(f.line, f.line)
        near = [packages for line, packages in tracebacks if 0 < line - line_at <= NEAR][:1]
        near += [{package} for line, package, name in imports if abs(line - line_at) <= NEAR and name in f.message]
        # a sibling shares the owner's family (mlx_audio beside mlx_lm); a package built on the
        # owner itself (mlx_vlm calling mlx's load_weights) is its caller, not a copy
        families = {o.split("_")[0] for o in owner if "_" in o}
        if any(not owner & packages and any(p.split("_")[0] in families for p in packages) for packages in near):
            _forget(f)


def _other_engines_copies(items: list[Finding], programs: Programs, catalog: Catalog) -> None:
    """sglang's copy of a vLLM message, or the reverse, in a text that shows only the other engine
    (or, showing neither, names only the other): that engine's entry of the same words, if it
    has one; else no entry where the text shows the other engine."""
    for f in items:
        if not f.id:
            continue
        twin = next((e for rival in programs.rivals_own(f.id) if (e := _twin(catalog, f, rival))), None)
        if twin is not None:
            _explain(f, twin, captured(twin.message.search(f.message)), f.message)
        elif programs.refuse(f.id):
            _forget(f)


def _out_of_context(items: list[Finding], catalog: Catalog, said: str) -> None:
    """An entry whose words other programs raise too (a project's own "...Config" class without
    a field) is the error only in a text that also holds what its ``context`` names."""
    for f in items:
        context = catalog.entries[f.id].context if f.id else None
        if context is not None and context.search(said) is None:
            _forget(f)


def _twin(catalog: Catalog, f: Finding, program: str):
    """The program's entry that reads the finding's message too."""
    return next((e for e in catalog.index.message_candidates(f.message)
                 if e.id.split("/", 1)[0] == program and e.message is not None and e.message.search(f.message)), None)


def _forget(f: Finding) -> None:
    """The entry is not this error's: the finding stays, unexplained."""
    f.id = f.title = f.summary = f.resolution = None
    f.fixes, f.partial = [], False


def _mentioned(quoted: list[Mention], catalog: Catalog, items: list[Finding], order: dict[int, int],
               before: dict[int, str]) -> list[Finding]:
    """Findings for catalog messages quoted in prose: root causes only where nothing the text
    printed as an error was identified. NCCL's detail under "Last error:" is the cause its code
    line above reports ("ncclInternalError: Internal check failed." for a missing interface)."""
    known = {f.id for f in items if f.id}
    identified = any(f.id and not f.wrapper for f in items)
    out: dict[str, Finding] = {}
    previous, above = None, None
    for mention in quoted:
        at = order.get(mention.line, mention.line)        # the line's place among the lines read
        follows = previous is not None and 0 < at - previous <= 2   # the next part of one message
        detail = follows and LAST_ERROR.search(before.get(mention.line, "")) is not None
        previous, reporter, above = at, above, None
        if mention.entry_id in known:    # the error as printed says it already
            continue
        if (_raised_elsewhere(mention, items) or not mention.reworded and (
                mention.partial and _printed_whole(mention, items)
                or _quote_refused(catalog.entries[mention.entry_id], mention, items))):
            continue
        if mention.entry_id in out:
            out[mention.entry_id].count += 1
            continue
        entry, values = catalog.entries[mention.entry_id], mention.groups
        died = signalled(values, catalog)
        if died is not None:
            entry, values = died.entry, died.groups
        completes = _completed_by(entry, items, catalog)
        printed = _printed_here(mention, items)
        out[mention.entry_id] = above = finding = Finding(
            exception="", message=redact_text(mention.text), line=mention.line, kind="mention", partial=mention.partial,
            root_cause=(not identified or bool(completes) or bool(printed)) and (not follows or detail))
        if finding.root_cause:
            for f in printed:
                f.root_cause = False
        if detail and reporter is not None and finding.root_cause:
            reporter.root_cause = False
        _explain(finding, entry, values, mention.text)
        for f in completes:
            f.root_cause = False
    return list(out.values())


def _death_reports(lines: list[tuple[int, str]], items: list[Finding], catalog: Catalog) -> list[Finding]:
    """The shell's report of the signal that killed the process, or the container runtime's, the
    kernel's or Slurm's, where the text shows no other error before it and none an entry
    explains: an uncaught C++ exception ends in SIGABRT, Swift's fatalError in SIGILL, and that
    error is the one to explain; the report adds nothing."""
    reports = [(number, line, death) for number, line in lines if (death := _death(line))]
    oom_killed = any(oom for _, _, (_, oom) in reports)
    out = []
    for number, line, (sig, oom) in reports:
        died = _entry_of(sig, oom, oom_killed, catalog)
        if died is None:
            continue
        # an exception whose message is the report (Python's CalledProcessError) is that death
        reporting = next((f for f in items if not f.id and f.message and f.message in line), None)
        if _error_shown(items, number, besides=reporting):
            continue
        if reporting is not None:
            _explain(reporting, died.entry, died.groups, line)
            continue
        finding = Finding(exception="", message=redact_text(line.strip()), line=number, kind="log")
        _explain(finding, died.entry, died.groups, line)
        out.append(finding)
    return out


def _unshown_aborts(items: list[Finding], catalog: Catalog) -> None:
    """A C++ abort whose exception's text the log does not show (what() never printed, or cut):
    after an error printed before it, that error is what aborted; alone, the abort itself is the
    finding (process/native-abort), as the shell's report of SIGABRT would be."""
    for f in items:
        if f.kind != "abort" or f.id:
            continue
        if _error_shown(items, f.line, besides=f):
            f.root_cause = False
            continue
        died = _entry_of(signal.SIGABRT, False, False, catalog)
        if died is not None:
            _explain(f, died.entry, died.groups, f.message)


def _error_shown(items: list[Finding], line: int, besides: Finding | None = None) -> bool:
    """The text shows an error (``besides`` the one asking) before this line, or one an entry
    explains anywhere: what a death's report or a bare abort adds nothing to."""
    return any(f is not besides and (f.line < line or (f.id and not f.wrapper)) for f in items)


def _death(line: str) -> tuple[signal.Signals, bool] | None:
    """(the signal, whether the OOM killer sent it) of a shell's or the system's report."""
    sig = killed_by(line)
    return (sig, False) if sig is not None else reported_death(line)


def _entry_of(sig: signal.Signals, oom: bool, oom_killed: bool, catalog: Catalog) -> Match | None:
    """The entry of a reported death: a signal's own entry; the OOM killer's SIGKILL is
    process/oom-killed; another SIGKILL (Kubernetes' exit code 137 without OOMKilled), where the
    text nowhere says the OOM killer sent one, came from outside (process/killed)."""
    if sig != signal.SIGKILL:
        return signalled({"exit_code": f"-{int(sig)}"}, catalog)
    if not oom and oom_killed:
        return None          # exit code 137 beside the OOMKilled the report also gives
    entry = catalog.entries.get("process/oom-killed" if oom else "process/killed")
    values = {} if oom else {"evidence": "the container runtime reports exit code 137 and no OOM kill"}
    return Match(entry, values, None, ()) if entry is not None else None


def _signals_told(lines: list[tuple[int, str]], items: list[Finding], catalog: Catalog) -> list[Finding]:
    """Prose or a title that says which signal the process died of, where the text shows no error
    of its own, printed or named in a title (an error says more, and advice in prose names
    signals too), nor on the line a memory running out that the signal followed from: the first
    such line, partial (the crash itself is not shown)."""
    if items or _titled_error(lines):
        return []
    title = _title(lines)
    for number, line in lines:
        sig = told_of(line)
        if (sig is None or (sig == signal.SIGABRT and line != title)
                or OUT_OF_MEMORY.search(line) or CHANGE.search(line)):
            continue
        died = signalled({"exit_code": f"-{int(sig)}"}, catalog)
        if died is not None:
            finding = Finding(exception="", message=redact_text(line.strip()), line=number, kind="mention", partial=True)
            _explain(finding, died.entry, died.groups, line)
            return [finding]
    return []


def _titled_error(lines: list[tuple[int, str]]) -> bool:
    """The text's title names an error (prose after it may speak of another program's crash)."""
    return ERROR_LINE.search(_title(lines)) is not None


def _title(lines: list[tuple[int, str]]) -> str:
    """The text's title: a markdown heading among its first lines."""
    return next((line for _, line in lines[:TITLE_LINES] if line.startswith("# ")), "")


def _printed_here(mention: Mention, items: list[Finding]) -> list[Finding]:
    """The unexplained error printed on the quote's line whose message (after its tags) starts
    with the quote: a message hard-wrapped over lines, which only joining them showed to be the
    entry's (not a message that quotes another error)."""
    start = mention.text[:MIN_SAME]
    if len(start) < MIN_SAME:
        return []
    return [f for f in items if f.line == mention.line and not f.id and f.kind in ("exception", "log")
            and LEADING_TAGS.sub("", f.message, count=1).startswith(start)]


def _printed_whole(mention: Mention, items: list[Finding]) -> bool:
    """A quote that stops where the message goes on, while the text prints the whole message
    elsewhere: the whole one says which error it is (another entry's, or none)."""
    start = mention.text.rstrip(" .…`'\"")
    return len(start) >= 16 and any(f.kind != "mention" and f.id != mention.entry_id
                                    and f.message.startswith(start) and len(f.message) > len(start) for f in items)


def _quote_refused(entry, mention: Mention, items: list[Finding]) -> bool:
    """The quote is the start of a message the text printed, which the entry's pattern refuses whole."""
    return any(f.line == mention.line and f.kind == "exception" and refused_whole(entry, mention.text.strip(), f.message)
               for f in items)


def _raised_elsewhere(mention: Mention, items: list[Finding]) -> bool:
    """The quoted message is that of an error the text printed with its raise frame, which the
    entry did not claim: the frame said the words came from other code (a wrapper that quotes
    the error it re-raises says nothing of where the words came from)."""
    quoted = mention.text.strip()
    return any(f.kind == "exception" and f.site and f.id != mention.entry_id and not f.wrapper and quoted in f.message
               for f in items)


def _complete_cut(items: list[Finding], catalog: Catalog) -> None:
    """A finding that names the cause a cut exception carried takes its place as the root."""
    for g in items:
        if g.id and g.kind != "mention":
            for f in _completed_by(catalog.entries[g.id], items, catalog):
                f.root_cause = False


def _completed_by(entry, items: list[Finding], catalog: Catalog) -> list[Finding]:
    """Exceptions known only by their class and site (an entry with no message: the message was
    cut before its cause), of a class the quoted entry names, or cut before their class in the
    same program's code: the quote says what the cut message would have."""
    return [f for f in items if f.id and f.id != entry.id and f.partial and f.kind == "exception"
            and catalog.entries[f.id].message is None
            and (f.exception.rsplit(".", 1)[-1] in entry.exceptions
                 or not f.exception and f.id.split("/", 1)[0] == entry.id.split("/", 1)[0])]


def _fold(items: list[Finding], order: dict[int, int]) -> None:
    """Mark what follows from another finding; each folded one is counted on the root nearest it."""
    identified = any(f.id and not f.wrapper for f in items)
    exceptions = any(f.kind == "exception" for f in items)
    nccl_warned = any(f.exception == "NCCL WARN" for f in items)
    firsts = [NUMBER.sub("#", f.message.split("\n", 1)[0]) for f in items]
    entries: dict[str, Finding] = {}
    for n, f in enumerate(items):
        first = entries.get(f.id) if f.id else None
        if first is not None:        # the same entry, found again in other words
            if f.root_cause and len(f.values) > len(first.values):   # it says more: it speaks for both
                first.root_cause = False
                entries[f.id] = f
            else:
                f.root_cause = False
        elif f.id and f.root_cause:
            entries[f.id] = f
        if not f.root_cause:
            continue
        text = NUMBER.sub("#", f.message)
        quotes_another = any(m != firsts[n] and len(m) >= 16 and m in text for i, m in enumerate(firsts) if i != n)
        # a paste cut mid-message ("ValueError: Received 6") beside the whole of it, identified
        cut_of_another = bool(f.message) and any(g.id and g is not f and g.message.startswith(f.message)
                                                 and len(g.message) > len(f.message) for g in items)
        if (f.wrapper             # it only wraps another error: never the root cause itself
                or (not f.id and (quotes_another or cut_of_another or (identified and (f.kind != "exception" or not f.message))
                                  or (exceptions and f.kind == "log")
                                  or (len(items) > 1 and (REFERS_ABOVE.search(f.message)
                                                          or f.exception.rsplit(".", 1)[-1].split("(")[0] in CARRIERS))
                                  or (nccl_warned and f.exception == "NCCL")))):
            f.root_cause = False
    _nccl_unwinding(items, order)
    roots = [f for f in items if f.root_cause]
    if not roots:              # nothing stands out: every finding but a wrapper (or a traceback cut to
        for f in items:        # nothing, beside an identified error) is its own root
            f.root_cause = not f.wrapper and not (identified and not f.id and not f.message)
        return
    for f in items:
        if not f.root_cause:
            nearest_root(f, roots).folded += f.count


def nearest_root(f: Finding, roots: list[Finding]) -> Finding:
    """The root cause a finding that follows from another is counted on: the nearest in the text."""
    return min(roots, key=lambda r: (abs(r.line - f.line), r.line))


def _goes_on_after_a_blank(items: list[Finding], order: dict[int, int]) -> None:
    """An exception whose message goes on after a blank line (huggingface_hub's "401 Client
    Error. (Request ID: ...)", a blank, then "Repository Not Found for url: ..."): the reader
    ends the message at the blank, and the error line after it, when an entry knows it, is the
    rest of that message. Lines count as read (a collector may have split one in pieces)."""
    for f, g in zip(items, items[1:]):
        if (f.kind == "exception" and not f.id and g.kind in ("log", "mention") and g.id
                and order.get(g.line, g.line) == order.get(f.line, f.line) + f.message.count("\n") + 2):
            f.root_cause = False


def _nccl_unwinding(items: list[Finding], order: dict[int, int]) -> None:
    """An NCCL thread reports one failure at each level it unwinds through: a later WARN of the
    same thread (host:pid:tid) that no entry knows is the first one, reported further up, and so
    is the application's NCCLCHECK line ("NCCL failure file.cu:110 'unhandled system error'") after
    the WARNs it reports, unless no entry knows them and the code the line names explains them.
    WARN lines without their host prefix (retyped, or the prefix cut) are one thread where they
    follow one another (in reading order: a collector may split a long line in pieces); an
    NCCLCHECK line without one reports the WARNs just before it."""
    threads: dict[str, list[Finding]] = {}     # each thread's WARNs so far
    run: list[Finding] = []                    # the WARNs just read, one after another
    for f in items:
        line = order.get(f.line, f.line)
        near = bool(run) and 0 < line - order.get(run[-1].line, run[-1].line) <= NEXT_WARN
        if f.exception != "NCCL WARN":
            told = [w for t in _threads(f) for w in threads.get(t, ())] or (run if near else [])
            if f.message.startswith(NCCLCHECK) and told:
                if f.id and not any(w.id for w in told):
                    for w in told:
                        w.root_cause = False
                else:
                    f.root_cause = False
            continue
        own = _threads(f)
        if not f.id and (any(t in threads for t in own) or not own and near and not _threads(run[-1])):
            f.root_cause = False
        for t in own:
            threads.setdefault(t, []).append(f)
        run = (run if near else []) + [f]


def _threads(f: Finding) -> list[str]:
    """The NCCL threads (host:pid:tid) of a finding's streams: a collector's or launcher's tag
    before it ("[rank3]: ", a pod's name) names a process, whose threads it does not tell apart."""
    return [m.group(0) for s in f.streams if (m := NCCL_THREAD.search(s))]


def _key(exc: TextException) -> tuple:
    """Repeats group together: the same error from 8 ranks differs at most in its numbers."""
    if exc.type or exc.kind != "exception" or exc.message:     # with or without its module path
        return (exc.kind, exc.type.rsplit(".", 1)[-1], NUMBER.sub("#", exc.message),
                exc.note[0] if exc.note else None)
    return exc.kind, "", exc.frames[-1].site if exc.frames else ""   # a cut traceback: where it was raised


def enrichment_of(exc: TextException, catalog: Catalog, mechanism: str = "log") -> tuple[Enrichment, bool] | None:
    """(enrichment, partial) for one exception read from text; a note written at run time wins."""
    if exc.note is not None:
        entry = catalog.entries.get(exc.note[0])
        if entry is not None:
            return Enrichment(id=entry.id, title=entry.title, engine=entry.engine, component=entry.component,
                              summary=exc.note[1], fixes=tuple(exc.note[2]), mechanism=mechanism,
                              links=entry.links, resolution=entry.resolution), False
    found = identify(exc, catalog)
    if found is None:
        return None
    return explain(found.match, found.facts, mechanism), found.partial


def _finding(exc: TextException, catalog: Catalog) -> Finding:
    facts = to_facts(exc)
    finding = Finding(exception=exc.type, message=redact_text(exc.message or exc.lead), line=exc.line, partial=exc.partial,
                      site=facts.raise_frame.site if facts.raise_frame else "", kind=exc.kind)
    known = enrichment_of(exc, catalog)
    if known is not None:
        enrichment, partial = known
        entry = catalog.entries[enrichment.id]
        finding.id, finding.title = enrichment.id, enrichment.title
        finding.summary, finding.fixes = enrichment.summary, list(enrichment.fixes)
        finding.wrapper, finding.partial = entry.wrapper, partial or exc.partial
        finding.resolution = entry.resolution
        finding.values = {name: redact_text(str(value)) for name, value in enrichment.values.items()}
    elif exc.note is not None and exc.note[0] == "enrich: not in the catalog":
        finding.summary, finding.generic = exc.note[1], True
    elif facts.raise_frame is not None and facts.raise_frame.source.startswith("assert "):
        # not in the catalog: the printed raise line still says which condition failed
        finding.summary = (f"`{facts.raise_frame.source.rstrip(',( ')}` failed in {finding.site} "
                           "(the values are not in the log; `enrich.install()` in the process adds them)")
        finding.generic = True
    return finding
