"""Find exceptions in log text as real logs look.

Sees through timestamp and process prefixes (sglang ``[2025-01-01 10:00:00 TP3]``, vLLM
``(EngineCore_DP0 pid=150) ERROR 02-23 02:23:19 [core.py:948]``, ``(VllmWorker rank=1 pid=97)``,
``[rank0]:``, docker compose ``sglang-1  | ``, ISO timestamps of Kubernetes and CI), ANSI
escapes and carriage returns, interleaved processes, chained exceptions, C++ ``terminate
called ... what():`` aborts, multi-line messages and tracebacks cut off before their last line.

The input is streamed: only lines near a trigger word are looked at in Python, the rest is
skipped by one regex scan per block, so memory stays bounded and large logs go fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import IO, Iterable

from enrich.facts import MAX_MESSAGE, Frame

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# One prefix at a time, outermost first; each names the stream (process) where it can.
PREFIXES = [
    re.compile(r"^(?P<stream>[A-Za-z0-9][\w.-]*?(?:[-_]\d+)?)\s+\|\s?"),                         # docker compose
    re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+"),         # k8s / CI
    re.compile(r"^\((?P<stream>[A-Za-z_][\w ]*?(?:\s+(?:rank|pid|ip)=[\w.]+)+)\)\s*"),            # vLLM / Ray
    re.compile(r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]]*\]\s?"),
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?P<stream>(?:\s+[A-Z]+\d+)*)\]\s?"),  # sglang
    re.compile(r"^\[(?P<stream>rank\d+)\]:\s?"),                                                  # torchrun
    re.compile(r"^(?P<stream>[\w.-]+:\d+):\d+ \[\d+\]\s+(?:[\w/.-]+:\d+\s+)?(?=NCCL )"),          # NCCL
]
# A line is looked at in Python only if it holds one of these (each found with str.find, which
# runs far faster than one regex alternation over the block).
TRIGGERS = ("Traceback (most recent call last)", "Error", "Exception", "ERROR", "CRITICAL", "FATAL", "error:",
            "what():", " WARN ", "NCCL failure", "NCCL error", "above exception", "Assertion `", "terminat", 'File "', "OutOfResources")
TRACEBACK = "Traceback (most recent call last):"
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?')
EXCEPTION = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\((?P<inner>[\w.]+)\))?)(?::\s?(?P<message>.*))?$")
ERROR_LINE = re.compile(
    r"(?:^|\s)(?P<type>(?:(?:[a-z_]\w*\.)+[A-Z]\w*|[A-Z]\w*(?:Error|Exception))(?:\((?P<inner>[\w.]+)\))?)"
    r": (?P<message>\S.*)$")
NCCL_WARN = re.compile(r"(?:NCCL|\.(?:cc|h|cpp):\d+) WARN (?P<message>.+)$")
TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'"
                       r"|terminating due to uncaught exception of type (?P<type2>\w+(?:::\w+)*)(?::\s*(?P<message>.*))?")
WHAT = re.compile(r"(?:^|\s)what\(\):\s+(?P<message>.*)$")
# Error lines that are not exceptions: ERROR-level log records, compiler diagnostics, CUDA kernel asserts.
LOG_ERROR = re.compile(r"(?:^|(?<=[\s\]]))(?:(?:ERROR|CRITICAL|FATAL)(?::|\s)|\[(?:ERROR|CRITICAL|FATAL)\]:?"
                       r"(?:\s*[\d:. -]+\s)?|(?<![\w-])error:)\s*(?P<message>\S.*)$|(?P<nccl>NCCL (?:failure|error)\b.*)$")
KERNEL_ASSERT = re.compile(r"(?P<message>\S+\.cu:\d+: .*Assertion `.*` failed\.)\s*$")
CHAINS = frozenset({"The above exception was the direct cause of the following exception:",
                    "During handling of the above exception, another exception occurred:"})
ROOTS = ("sglang", "vllm", "mlx_lm", "mlx", "torch", "triton", "transformers", "flashinfer", "sgl_kernel",
         "ray", "enrich")
MAX_CONTINUATION = 40
BLOCK = 1 << 22


@dataclass
class TextException:
    """One exception found in text."""

    type: str                       # as written ("" when the traceback was cut before its last line)
    message: str
    line: int                       # 1-based line of the traceback header or error line
    frames: list[Frame] = field(default_factory=list)   # outermost first, as printed
    stream: str = ""
    partial: bool = False
    led_to: "TextException | None" = field(default=None, repr=False)   # the exception raised while handling this one
    inner: str | None = None        # the inner type of a wrapper such as RayTaskError(OutOfMemoryError)
    kind: str = "exception"         # or "log": an error line that is not an exception


def strip_prefixes(line: str) -> tuple[str, str]:
    """(stream, content) of one raw line."""
    stream, content, _ = split_line(line)
    return stream, content


def split_line(line: str) -> tuple[str, str, str]:
    """(stream, content, level) of one raw line; the level where a prefix carries one."""
    if "\x1b" in line:
        line = ANSI.sub("", line)
    if "\r" in line:
        line = line.rstrip("\r").rsplit("\r", 1)[-1]
    streams, level = [], ""
    for _ in range(4):
        for prefix in PREFIXES:
            m = prefix.match(line)
            if m:
                groups = m.groupdict()
                stream = (groups.get("stream") or "").strip()
                if stream:
                    streams.append(stream)
                level = groups.get("level") or level
                line = line[m.end():]
                break
        else:
            break
    return " ".join(streams), line, level


def module_of(path: str) -> str:
    """A module name for a file path printed in a traceback."""
    parts = path.replace("\\", "/").split("/")
    if parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in ROOTS:
            dotted = parts[i:]
            break
    else:
        dotted = parts[-1:]
    if dotted and dotted[-1] == "__init__":
        dotted = dotted[:-1]
    return ".".join(dotted)


class _Stream:
    """Parser state for one process's lines."""

    def __init__(self, name: str):
        self.name = name
        self.current: TextException | None = None   # traceback being read
        self.state = "idle"                          # idle | frames | source | message
        self.continuation = 0
        self.last: TextException | None = None       # the last exception closed in this stream
        self.log_error: TextException | None = None  # an error log line, unless a traceback follows it
        self.pending_chain: TextException | None = None   # chained to the next traceback


class Parser:
    def __init__(self):
        self.found: list[TextException] = []
        self.streams: dict[str, _Stream] = {}
        self.last_stream = ""
        self.awaiting_what: list[TextException] = []   # C++ aborts whose what() line is still to come

    # A block of lines is fed while any traceback is open; otherwise only trigger lines.
    @property
    def open(self) -> bool:
        return (any(s.state != "idle" or s.log_error is not None for s in self.streams.values())
                or bool(self.awaiting_what))

    def feed(self, number: int, raw: str) -> None:
        stream_name, text, level = split_line(raw.rstrip("\n"))
        if not stream_name and self.streams.get(self.last_stream) and self.streams[self.last_stream].state != "idle":
            stream_name = self.last_stream      # unprefixed continuation of a prefixed log record
        stream = self.streams.setdefault(stream_name, _Stream(stream_name))
        self.last_stream = stream_name
        if stream.log_error is not None and TRACEBACK not in text:
            self.found.append(stream.log_error)   # not the message of a logged traceback: a finding of its own
        stream.log_error = None
        what = WHAT.search(text) if self.awaiting_what else None
        if what:
            abort = self.awaiting_what.pop(0)
            abort.message = what["message"][:MAX_MESSAGE]
            if stream.state == "idle":       # its message may go on over the next lines
                stream.current, stream.state, stream.continuation = abort, "message", 0
            else:
                self.found.append(abort)
            return
        self._line(stream, number, text, level)

    def _line(self, s: _Stream, number: int, text: str, level: str = "") -> None:
        stripped = text.strip()
        if TRACEBACK in text:
            self._close(s)
            s.current = TextException(type="", message="", line=number, stream=s.name)
            if s.pending_chain is not None:
                s.pending_chain.led_to = s.current
                s.pending_chain = None
            s.state = "frames"
            return
        if stripped in CHAINS:
            self._close(s)
            s.pending_chain = s.last
            return
        if s.state == "idle" and '", line ' in text and FRAME.match(text):
            # a traceback whose header was cut off: read it from its first frame
            s.current = TextException(type="", message="", line=number, stream=s.name, partial=True)
            s.state = "frames"
        if s.state in ("frames", "source"):
            frame = FRAME.match(text)
            if frame:
                s.current.frames.append(Frame(module_of(frame["file"]), (frame["func"] or "").strip(),
                                              int(frame["line"]), frame["file"], _source=""))
                s.state = "source"
                return
            if s.state == "source" and text.startswith((" ", "\t")) and stripped:
                if s.current.frames and not s.current.frames[-1]._source and set(stripped) - set("^~ "):
                    s.current.frames[-1]._source = stripped[:400]
                return
            if not stripped or text.startswith((" ", "\t")) or set(stripped) <= {"."}:
                return   # blank, indented, or "..." where someone cut frames out
            m = EXCEPTION.match(stripped)
            if m and (m["message"] is not None or "." in m["type"] or m["type"][:1].isupper()):
                s.current.type, s.current.inner = m["type"], m["inner"]
                s.current.message = (m["message"] or "")[:MAX_MESSAGE]
                s.state, s.continuation = "message", 0
                return
            self._close(s, partial=True)      # something else: the traceback was cut off here
            self._idle_line(s, number, text, level)
            return
        if s.state == "message":
            if (stripped and not stripped.startswith("[") and s.continuation < MAX_CONTINUATION
                    and not FRAME.match(text) and not TERMINATE.search(text)):
                s.current.message = (s.current.message + "\n" + stripped)[:MAX_MESSAGE]
                s.continuation += 1
                return
            self._close(s)
        self._idle_line(s, number, text, level)

    def _idle_line(self, s: _Stream, number: int, text: str, level: str = "") -> None:
        m = TERMINATE.search(text)
        if m:
            abort = TextException(type=m["type"] or m["type2"], message=(m["message"] or "")[:MAX_MESSAGE],
                                  line=number, stream=s.name)
            what = WHAT.search(text, m.end())
            if what:
                abort.message = what["message"][:MAX_MESSAGE]
            if abort.message:
                self.found.append(abort)
            else:
                self.awaiting_what.append(abort)
            return
        m = NCCL_WARN.search(text)
        if m:
            self.found.append(TextException(type="NCCL WARN", message=m["message"][:MAX_MESSAGE], line=number,
                                            stream=s.name))
            return
        m = ERROR_LINE.search(text)
        if m:
            self.found.append(TextException(type=m["type"], message=m["message"][:MAX_MESSAGE], line=number,
                                            stream=s.name, inner=m["inner"]))
            return
        stripped = text.strip()
        m = KERNEL_ASSERT.search(text) or LOG_ERROR.search(stripped)
        message = (m["message"] or m.groupdict().get("nccl") or "") if m else \
            (stripped if level in ("ERROR", "CRITICAL") else "")
        if message:   # held back: it may be the log message of a traceback printed next
            s.log_error = TextException(type="", message=message[:MAX_MESSAGE], line=number,
                                        stream=s.name, kind="log")

    def _close(self, s: _Stream, partial: bool = False) -> None:
        if s.current is not None and s.state != "idle":
            s.current.partial = partial or s.current.partial or not s.current.type
            self.found.append(s.current)
            s.last = s.current
        s.current, s.state = None, "idle"

    def finish(self) -> list[TextException]:
        for s in self.streams.values():
            self._close(s, partial=s.state in ("frames", "source"))
            if s.log_error is not None:
                self.found.append(s.log_error)
        self.found.extend(self.awaiting_what)   # aborts whose what() line never came
        self.awaiting_what = []
        return sorted(self.found, key=lambda e: e.line)


def parse_lines(lines: Iterable[str]) -> list[TextException]:
    parser = Parser()
    for number, line in enumerate(lines, 1):
        parser.feed(number, line)
    return parser.finish()


def scan(stream: IO[str]) -> list[TextException]:
    """Parse a text stream block by block; lines far from any trigger are never split out."""
    parser = Parser()
    number, carry = 0, ""
    while True:
        block = stream.read(BLOCK)
        text = carry + block
        if not block:
            if text:
                _feed_block(parser, text, number, whole=True)
            break
        cut = text.rfind("\n") + 1
        if cut == 0:
            carry = text
            continue
        number = _feed_block(parser, text[:cut], number)
        carry = text[cut:]
    return parser.finish()


def _feed_block(parser: Parser, text: str, number: int, whole: bool = False) -> int:
    """Feed the lines of ``text`` that matter; returns the line count after it."""
    pos = 0
    for hit in _trigger_positions(text):
        if hit < pos:
            continue
        start = text.rfind("\n", 0, hit) + 1
        number += text.count("\n", pos, start)
        pos = start
        while pos < len(text):   # line by line while a traceback is open
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end + 1
            number += 1
            parser.feed(number, text[pos:end])
            pos = end
            if not parser.open:
                break
    number += text.count("\n", pos)
    if whole and text and not text.endswith("\n") and pos < len(text):
        number += 1
    return number


def _trigger_positions(text: str) -> list[int]:
    hits = []
    for word in TRIGGERS:
        at = text.find(word)
        while at >= 0:
            hits.append(at)
            end = text.find("\n", at)
            at = text.find(word, end + 1) if end >= 0 else -1   # one hit a line is enough
    hits.sort()
    return hits


def to_facts(exc: TextException):
    """Facts for the matcher: innermost frame first, frames known by module and function name."""
    from enrich.facts import from_text
    frames = tuple(Frame(f.module, f.qualname, f.lineno, f.filename, _source=f._source, textual=True)
                   for f in reversed(exc.frames))
    return from_text(exc.inner or exc.type, exc.message, frames)
