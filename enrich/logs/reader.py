"""Read exceptions out of log text: tracebacks, error lines, native failures, notes enrich wrote.

Lines are peeled first (enrich.logs.peel), then read per process: interleaved processes keep
their tracebacks apart, chained exceptions are linked, cut tracebacks are kept as partial,
messages go on over the lines that follow them, hard-wrapped frame lines are joined.
"""

from __future__ import annotations

import builtins
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Iterable

from enrich.facts import MAX_MESSAGE, Frame
from enrich.logs import notebook
from enrich.logs.native import FAULTHANDLER_ABORT, TERMINATE, WHAT, compiler_error, is_hint, native_error, nccl_return
from enrich.logs.paste import wrapped_rows
from enrich.logs.peel import ERROR_LEVELS, MAX_PIECES, Line, Peeler, whole_before, whole_line
from enrich.logs.shell import killed_by

TRACEBACK = "Traceback (most recent call last):"
# a progress bar the traceback was printed into, no newline between: tqdm's "| 1/58 [00:00<00:56,  1.01it/s]"
PROGRESS_BAR = re.compile(r"\d+/\d+ \[[\d:]+<[\d:?]+(?:, [^\]]*)?\]$")
# (faulthandler's dump of a crash, "File "x.py", line 12 in f", is no traceback: the crash line says it)
# (a retyped one may lose or double a space: "File "x.py",  line398, in f")
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)",\s{1,3}line ?(?P<line>\d+)(?!\d| in )(?:, in (?P<func>.+))?')
EXCEPTION = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\((?P<inner>[\w.]+)\))?)(?::\s?(?P<message>.*))?$")
# an exception's line: a dotted class, or a bare one named ...Error, ...Exception, ...Failure or
# Triton's OutOfResources
ERROR_LINE = re.compile(
    r"(?:^|\s)(?P<type>(?:(?:[a-z_]\w*\.)+[A-Z]\w*|[A-Z]\w*(?:Error|Exception|Failure)|OutOfResources)"
    r"(?:\((?P<inner>[\w.]+)\))?)"
    r":(?: +(?P<message>\S.*)|\s*$)")
# a class named as an error, as a sentence that ends on a module's class and a colon is not
ERROR_NAME = re.compile(r"(?:Error|Exception|Failure|OutOfResources|Interrupt|Exit)(?:\(|$)")
# Python code: "-> torch.Tensor:" ends a signature, on the def's line or on its own (") -> whisper.Whisper:")
DEFINITION = re.compile(r"(?:async\s+)?def\s|class\s|\)\s*->\s")
# an exception printed as its repr: ValueError('...'), IncompatibleTypeErrorImpl("...")
REPR = re.compile(r"(?:^|(?<=[\s`'\"(:]))(?P<type>(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Impl|Failure)\w*)"
                  r"\((?P<q>['\"])(?P<message>.{8,}?)(?P=q)\)")
# the arguments of a log call that logging could not format ("--- Logging error ---", then
# "Message: 'Error getting repo files'" and "Arguments: (HFValidationError(...),)"): an exception
# there was caught and handed to the logger, not raised
LOGGED_ARGUMENTS = "Arguments: ("
# Error lines that are not exceptions: ERROR-level log records, compiler diagnostics, CUDA kernel asserts.
LOG_ERROR = re.compile(r"(?:^|(?<=[\s\]]))(?:(?:ERROR|CRITICAL|FATAL)(?::|\s)|\[(?:ERROR|CRITICAL|FATAL)\]:?"
                       r"(?:\s*[\d:. -]+\s)?|(?<![\w-])error:)\s*(?P<message>\S.*)$|(?P<nccl>NCCL (?:failure|error)\b.*)$")
# pytest's long report ends an error with where it was raised: "pkg/module.py:1009: AssertionError"
PYTEST_AT = re.compile(r"(?P<file>\S+\.py):(?P<line>\d+): (?P<type>[\w.]+)$")
PYTEST_NEAR = 8       # lines read from the error's end to pytest's line that says where it was raised
KERNEL_FILE = re.compile(r"(?<!\S)\S+\.cu:\d+: ")    # a kernel's failed assertion starts at its source file
CHAINS = frozenset({"The above exception was the direct cause of the following exception:",
                    "During handling of the above exception, another exception occurred:"})
# a note an enriched process already wrote: "[engine/slug] summary", "[enrich: not in the catalog] ..."
NOTE = re.compile(r"^\[(?P<id>[a-z0-9][\w.-]*/[\w.-]+|enrich: not in the catalog)\] (?P<summary>\S.*)$")
NOTE_LINE = re.compile(r"^\s+(?:fix \d+: (?P<fix>.+)|resolution: .*|more: enrich explain \S+)$")
CARETS = frozenset("^~ ")
# ComfyUI's error report, in markdown: "- **Exception Type:** ValueError" then "- **Exception Message:** ..."
REPORT_FIELD = re.compile(r"^- \*\*Exception (?P<field>Type|Message):\*\* ?(?P<value>.*)$")
# Triton's CompilationError (alone, or quoted by inductor's error): the kernel's line and column
COMPILED_AT = re.compile(r"(?:CompilationError: )?at \d+:\d+:\s*\n")
BUILTIN_ERRORS = frozenset(name for name in dir(builtins) if name.endswith(("Error", "Exception")))
HEADING = re.compile(r"^#{1,6} ")
# a message written as a report, its parts apart: a title that ends in "!" or ":" (sgl_kernel's
# "... library!"), then after blank lines "Attempted locations:", "GPU Info:", "Error details ...:"
REPORT_LEAD = re.compile(r"[!:]\s*$")
REPORT_PART = re.compile(r"^[A-Z][\w ()/,.'-]{0,78}:$")
PROGRESS = re.compile(r"^\d{1,3}%\|")                              # tqdm's bar
SEPARATOR_TAIL = re.compile(r"(?:\n[=\-_*~#]{3,})+$")                 # a ruler a paste put after the message
QUIET_LEVELS = frozenset({"INFO", "DEBUG", "WARNING", "WARN", "NOTICE", "TRACE", "I", "W"})
WARNING_LEVELS = frozenset({"WARNING", "WARN", "W"})
ROOTS = ("sglang", "vllm", "mlx_lm", "mlx", "torch", "triton", "transformers", "flashinfer", "sgl_kernel",
         "ray", "enrich")
PACKAGE_DIRS = ("site-packages", "dist-packages")
MAX_CONTINUATION = 40
MAX_SOURCE_LINES = 8         # lines a printed statement may go on for before the traceback counts as cut
STALE = 200          # lines after which an unfinished traceback of a quiet process is closed


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
    kind: str = "exception"         # "log": an error line that is not an exception; "warning": a native
                                    # warning; "diagnostic": a compiler's error line; "abort": a C++
                                    # abort whose exception's text the log does not show
    note: tuple[str, str, list[str]] | None = None   # (id, summary, fixes) enrich wrote for it at run time
    repeats: int = 1
    lead: str = ""                  # a log line's text before its traceback ("Exception in worker ...: <message>")


def _kernel_assert(text: str) -> str | None:
    """A GPU kernel's failed assertion ("IndexKernel.cu:92: operator(): block: [0,0,0], thread:
    [1,0,0] Assertion `idx < size` failed."), from its source file to the line's end; read in
    one pass (a long line of file tokens and backticks must not be searched from each)."""
    end = text.rstrip()
    if not end.endswith("` failed.") or ".cu:" not in end:
        return None
    start = KERNEL_FILE.search(end)
    if start is None or end.find("Assertion `", start.end(), len(end) - len("` failed.")) < 0:
        return None
    return end[start.start():]


def module_of(path: str) -> str:
    """A module name for a file path printed in a traceback: the part after site-packages, or
    from a known top-level package, or the file's name."""
    parts = path.replace("\\", "/").split("/")
    if parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    dotted = None
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in PACKAGE_DIRS:
            dotted = parts[i + 1:]
            break
    if dotted is None:
        for i in range(len(parts) - 1, -1, -1):
            if parts[i] in ROOTS:
                dotted = parts[i:]
                break
        else:
            dotted = parts[-1:]
    if dotted and dotted[-1] == "__init__":
        dotted = dotted[:-1]
    return ".".join(dotted)


def strip_prefixes(line: str) -> tuple[str, str]:
    """(stream, content) of one raw line."""
    [peeled] = Peeler().peel(0, line) or [Line(0, "")]
    return peeled.stream, peeled.text


class _Stream:
    """Parser state for one process's lines."""

    def __init__(self, name: str):
        self.name = name
        self.current: TextException | None = None   # traceback or message being read
        self.state = "idle"                          # idle | frames | source | message
        self.continuation = 0
        self.gap: bool | str = False                 # an empty line of the message's record was just read
                                                     # ("report": one that may part a report's sections)
        self.last: TextException | None = None       # the last exception closed in this stream
        self.log_error: TextException | None = None  # an error log line, unless a traceback follows it
        self.pending_chain: TextException | None = None   # chained to the next traceback
        self.wrapped_frame = ""                      # a frame line hard-wrapped in two
        self.line_prefixed: bool | None = None       # every line of its tracebacks carries its tag
        self.level = ""                              # the level of the line that opened the message
        self.prefix = ""                             # the prefix shape of the line that opened it
        self.seen = 0                                # the last line number read
        self.read = 0                                # lines of it read (a wrapper may number one line twice)
        self.last_at = 0                             # lines read when the last exception closed
        self.notebook: str | None = None             # IPython's traceback: the type its header named
        self.open_brackets: int | None = None        # IPython's source lines: what the arrow's statement left open
        self.flat = False                            # its frames lost their indentation (a shifted paste)
        self.report_type = ""                        # ComfyUI's error report: the type its bullet named
        self.shift = 0                               # spaces the whole traceback is indented by (a nested
        self.shift_seen = False                      # report: torchrun's @record table); its first frame seen


class Parser:
    def __init__(self):
        self.found: list[TextException] = []
        self.streams: dict[str, _Stream] = {}
        self.last_stream = ""
        self.awaiting_what: list[TextException] = []   # C++ aborts whose what() line is still to come
        self.peeler = Peeler()
        self.previous_raw = ""
        self.number = 0
        self.kept: list[tuple[int, str]] | None = None   # every peeled line, where asked for

    # A block of lines is fed while any traceback is open; otherwise only trigger lines.
    @property
    def open(self) -> bool:
        for s in reversed(self.streams.values()):     # the streams in the order last seen, newest first
            if self.number - s.seen >= STALE:
                break
            if s.state != "idle" or s.log_error is not None:
                return True
        return bool(self.awaiting_what) or self.peeler.pending

    def feed(self, number: int, raw: str, neighbours: tuple[str, ...] | None = None) -> None:
        for line in self.peel(number, raw, neighbours):
            if self.kept is not None:
                self.kept.append(_kept(line))
            self.feed_line(line)

    def peel(self, number: int, raw: str, neighbours: tuple[str, ...] | None = None) -> list[Line]:
        self.number = number
        lines = self.peeler.peel(number, raw, (self.previous_raw,) if neighbours is None else neighbours)
        self.previous_raw = raw
        return lines

    def feed_line(self, line: Line) -> None:
        stream = self._stream_of(line)
        stream.seen = line.number
        stream.read += 1
        if next(reversed(self.streams)) != stream.name:
            self.streams[stream.name] = self.streams.pop(stream.name)   # kept in the order last seen
        text = line.text
        if stream.log_error is not None and TRACEBACK not in text and text.strip():
            self.found.append(stream.log_error)   # not the message of a logged traceback: a finding of its own
            stream.log_error = None
        what = WHAT.search(text) if self.awaiting_what else None
        if what:
            abort = self.awaiting_what.pop(0)
            abort.message, abort.lead = what["message"][:MAX_MESSAGE], ""
            if stream.state == "idle":       # its message may go on over the next lines
                self._open_message(stream, abort, line.level, line.prefix)
            else:
                self.found.append(abort)
            return
        self._line(stream, line.number, text, line.level, line.repeats, line.prefix)

    def _stream_of(self, line: Line) -> _Stream:
        """The process a line belongs to: its tags, or the one whose record it continues (a
        logged traceback carries the tag on its first line only)."""
        name = line.stream
        last = self.streams.get(self.last_stream)
        if (last is not None and name != self.last_stream and last.state != "idle" and last.line_prefixed is not True
                and (not name or self.last_stream.startswith(name + " "))):
            if last.line_prefixed is False or last.state == "message":
                return last
            if line.text.startswith((" ", "\t")) or TRACEBACK in line.text:   # a frame of the record's traceback
                last.line_prefixed = False
                return last
        stream = self.streams.get(name)
        if stream is None:
            stream = self.streams[name] = _Stream(name)
        elif stream.state != "idle" and stream.line_prefixed is None and name:
            stream.line_prefixed = True
        self.last_stream = name
        return stream

    def _line(self, s: _Stream, number: int, text: str, level: str = "", repeats: int = 1, prefix: str = "") -> None:
        if s.shift and s.state != "idle":
            text = self._unshifted(s, text)
        stripped = text.strip()
        if s.wrapped_frame:
            joint = "" if s.wrapped_frame.count('"') % 2 else " "
            text = s.wrapped_frame + joint + stripped
            s.wrapped_frame, stripped = "", text.strip()
        field = REPORT_FIELD.match(stripped) if stripped.startswith("- **Exception ") else None
        if field and field["field"] == "Type":
            s.report_type = field["value"].strip()
            return
        if field and s.report_type:        # the report's two bullets read as the exception line they stand for
            text = stripped = f"{s.report_type}: {field['value']}"
            s.report_type = ""
        if TRACEBACK in text:
            self._close(s)
            lead = text[:text.index(TRACEBACK)].strip().rstrip(",:").strip()
            lead = "" if PROGRESS_BAR.search(lead) else lead
            s.current = TextException(type="", message="", line=number, stream=s.name, repeats=repeats, lead=lead)
            if s.pending_chain is not None:
                s.pending_chain.led_to = s.current
                s.pending_chain = None
            s.state, s.line_prefixed = "frames", None
            s.shift, s.shift_seen = len(text) - len(text.lstrip(" ")), False
            return
        named = notebook.header_type(text) if "Traceback (most" in text else None
        if named:                                   # IPython's header: the type first, then the frames
            self._close(s)
            s.current = TextException(type="", message="", line=number, stream=s.name, repeats=repeats)
            s.state, s.line_prefixed, s.notebook, s.open_brackets = "frames", None, named, None
            if s.pending_chain is not None:
                s.pending_chain.led_to, s.pending_chain = s.current, None
            return
        if stripped in CHAINS:
            self._close(s)
            s.pending_chain = s.last
            return
        if s.state == "idle" and ('", ' in text and FRAME.match(text)
                                  or stripped.startswith(("File ", "Cell In")) and notebook.frame(text, module_of)):
            # a traceback whose header was cut off: read it from its first frame
            s.current = TextException(type="", message="", line=number, stream=s.name, partial=True, repeats=repeats)
            s.state, s.line_prefixed = "frames", None
            s.notebook = None if FRAME.match(text) else ""
        if s.state in ("frames", "source"):
            frame = FRAME.match(text)
            read = (Frame(module_of(frame["file"]), (frame["func"] or "").strip(), int(frame["line"]), frame["file"],
                          _source="") if frame else notebook.frame(text, module_of))
            if read is not None:
                if frame and s.current.partial and s.flat and len(s.current.frames) == 1 and not s.shift:
                    # a headless paste whose selection began at its first frame's text: the
                    # traceback is indented as a whole by what the next frame has beyond two spaces
                    s.shift, s.shift_seen = max(len(text) - len(text.lstrip(" ")) - 2, 0), True
                s.current.frames.append(read)
                s.state, s.open_brackets = "source", None
                s.flat = bool(frame) and not text[:1].isspace()
                return
            if s.notebook is not None and s.current.frames:
                if (stripped == "..." or notebook.FOLDED.match(stripped)) and s.current.frames[-1].module:
                    # frames cut out (or folded by Colab): what follows is another's
                    s.current.frames.append(notebook.elided())
                    return
                numbered, s.open_brackets = notebook.add_source(s.current.frames[-1], text, s.open_brackets)
                if numbered:
                    return
            if stripped.startswith('File "'):      # a frame line hard-wrapped: joined with the next
                s.wrapped_frame = text
                return
            if s.state == "source" and s.flat and stripped and s.current.frames:
                # a paste that lost its indentation: the frame's statement unindented, the
                # exception line indented
                last = s.current.frames[-1]
                if not last._source and not text[:1].isspace() and not EXCEPTION.match(stripped):
                    last._source = stripped[:notebook.MAX_SOURCE]
                    return
                if last._source and text[:1].isspace() and ERROR_LINE.match(stripped):
                    text = stripped
            if s.state == "source" and text.startswith((" ", "\t")) and stripped:
                if s.current.frames and not s.current.frames[-1]._source and set(stripped) - CARETS:
                    s.current.frames[-1]._source = stripped[:notebook.MAX_SOURCE]
                return
            if not stripped or text.startswith((" ", "\t")) or set(stripped) <= {"."} or set(stripped) <= CARETS:
                return   # blank, indented, or "..." where someone cut frames out
            m = EXCEPTION.match(stripped)
            if m and m["message"] is None and _cut_name(m["type"]):
                self._close(s, partial=True)      # "ValueE": the paste stopped inside the exception's name
                return
            if m and (m["message"] is not None or "." in m["type"] or m["type"][:1].isupper()):
                s.current.type, s.current.inner = m["type"], m["inner"]
                s.current.message = (m["message"] or "")[:MAX_MESSAGE]
                self._open_message(s, s.current, level, prefix)
                return
            if s.state == "source" and s.current.frames and _unfinished(s.current.frames[-1]._source or ""):
                frame = s.current.frames[-1]           # the printed statement goes on (a string with newlines)
                frame._source = (frame._source + "\n" + stripped)[:notebook.MAX_SOURCE]
                return
            self._close(s, partial=True)      # something else: the traceback was cut off here
            self._idle_line(s, number, text, level, repeats, prefix)
            return
        if s.state == "message":
            if not stripped and not s.gap:
                if level and level == s.level and prefix.rstrip() == s.prefix.rstrip():
                    s.gap = True      # an empty line logged with the record's level: the message may go on
                    return
                if REPORT_LEAD.search(s.current.message.lstrip("\n").split("\n", 1)[0]):
                    s.gap = "report"  # "...library!", a blank, then "Attempted locations:": the report goes on
                    return
            if ((s.gap != "report" or REPORT_PART.match(stripped))
                    and self._continues(s, text, stripped, level) and s.prefix.startswith(prefix)):   # same record
                joint = "\n\n" if s.gap else "\n"
                s.current.message = (s.current.message + joint + text.rstrip())[:MAX_MESSAGE].lstrip("\n")
                s.continuation, s.gap = s.continuation + 1, False
                return
            announced = s.current if _announces(s.current, stripped) else None
            self._close(s)
            if announced is not None:
                s.pending_chain = announced
        self._idle_line(s, number, text, level, repeats, prefix)

    @staticmethod
    def _unshifted(s: _Stream, text: str) -> str:
        """A line of a traceback printed indented as a whole ("  Traceback ...", "    File ...",
        "  RuntimeError: ..."), as if printed alone. The header's indentation counts only where
        the first frame is two spaces deeper."""
        if not s.shift_seen:
            if not FRAME.match(text):
                return text
            s.shift_seen = True
            if len(text) - len(text.lstrip(" ")) != s.shift + 2:
                s.shift = 0
                return text
        return text[s.shift:] if text.startswith(" " * s.shift) else text

    def _continues(self, s: _Stream, text: str, stripped: str, level: str) -> bool:
        if not stripped or s.continuation >= MAX_CONTINUATION or stripped.startswith("[") and NOTE.match(stripped):
            return False
        if PROGRESS.match(stripped):
            return False          # a progress bar drawn over the message's last line
        if HEADING.match(text):
            return False          # a markdown heading (a report's "## Stack Trace") starts another part
        if (FRAME.match(text) or TERMINATE.search(text) or killed_by(text) or stripped.startswith("*** First throw")
                or FAULTHANDLER_ABORT.match(stripped)):
            return False          # another record: a frame, an abort, the shell's report, a call stack
        if not s.current.message.strip():
            return True           # a bare "RuntimeError:": its message is on the next line
        if (stripped.startswith(("[", "frame #"))
                or (level in QUIET_LEVELS and s.level not in QUIET_LEVELS)):
            return False
        if COMPILED_AT.match(s.current.message) and set(s.current.message.rstrip().rsplit("\n", 1)[-1].strip()) <= CARETS:
            return True           # Triton's "at L:C:", the kernel's source, a caret, then its error: one message
        m = ERROR_LINE.match(stripped)
        return m is None or not s.current.message.strip()   # a new exception line starts a new error

    def _idle_line(self, s: _Stream, number: int, text: str, level: str = "", repeats: int = 1, prefix: str = "") -> None:
        stripped = text.strip()
        if not stripped or set(stripped) <= CARETS or is_hint(stripped) or text.startswith("# "):
            return      # a markdown heading or a comment is prose: only what it quotes counts (mentions)
        if stripped[0] == "[":
            note = NOTE.match(stripped)
            if note:
                self._note(s, note)
                return
        if s.last is not None and s.last.note is not None and text[:1] in " \t":
            m = NOTE_LINE.match(text)
            if m:
                if m["fix"]:
                    s.last.note[2].append(m["fix"])
                return
        if s.last is not None and ": " in stripped and s.read - s.last_at <= PYTEST_NEAR \
                and (at := PYTEST_AT.fullmatch(stripped)) and at["type"].rsplit(".", 1)[-1] == s.last.type.rsplit(".", 1)[-1]:
            s.last.frames.append(Frame(module_of(at["file"]), "", int(at["line"]), at["file"], _source="",
                                       textual=True))    # the raise frame of the error just printed
            return
        if FAULTHANDLER_ABORT.match(stripped):
            self.found.append(TextException(type="", message="", line=number, stream=s.name, repeats=repeats,
                                            kind="abort", partial=True, lead=stripped))
            return
        m = TERMINATE.search(text)
        if m:
            if m["reason"] is not None:        # Objective-C's, the reason on this line or the next
                told = m["reason"].strip().strip("'")
                goes_on = not told
            else:                              # libc++abi's "... of type T:" hard-wrapped before the message
                told = m["message"] or ""
                goes_on = m["message"] is not None and not told
            abort = TextException(type=m["type"] or m["type2"] or m["type3"] or "", message=told[:MAX_MESSAGE],
                                  line=number, stream=s.name)
            what = WHAT.search(text, m.end())
            if what:
                abort.message = what["message"][:MAX_MESSAGE]
            if abort.message or goes_on:
                if not abort.message:
                    abort.kind = "abort"              # until the next line gives its text
                self._open_message(s, abort, level, prefix)
                return
            abort.lead = stripped[:MAX_MESSAGE]       # shown while no what() line gives the message
            if m["type"]:
                self.awaiting_what.append(abort)      # libstdc++ prints what() on the next line
            else:
                abort.kind, abort.partial = "abort", True   # libc++abi's line cut, or no exception at all
                self.found.append(abort)
            return
        native = native_error(text)
        if native:
            self.found.append(TextException(type=native[0], message=native[1][:MAX_MESSAGE], line=number,
                                            stream=s.name, repeats=repeats))
            return
        diagnostic = compiler_error(text)
        if diagnostic:
            self.found.append(TextException(type="", message=diagnostic[:MAX_MESSAGE], line=number, stream=s.name,
                                            kind="diagnostic", repeats=repeats))
            return
        returned = nccl_return(text) if "NCCL INFO" in text else None
        if returned:
            self.found.append(TextException(type="NCCL", message=returned[1], line=number, stream=s.name,
                                            kind="log", repeats=repeats))
            return
        m = ERROR_LINE.search(text) if not DEFINITION.match(text) else None
        if m and not m["message"] and text[:m.start()].strip() and not ERROR_NAME.search(m["type"]):
            m = None     # prose that ends on a dotted name and a colon: "In 1 module of nn.Sequential:"
        if m and not text.startswith((" ", "\t")):
            exc = TextException(type=m["type"], message=(m["message"] or "")[:MAX_MESSAGE], line=number,
                                stream=s.name, inner=m["inner"], repeats=repeats)
            if m.start() == 0 or not text[:m.start()].strip() or exc.message.rstrip().endswith(":"):   # or its message goes on
                if s.pending_chain is not None:   # chained, with no traceback of its own (never raised)
                    s.pending_chain.led_to, s.pending_chain = exc, None
                self._open_message(s, exc, level, prefix)     # its message may go on over the next lines
            else:
                self.found.append(exc)
            return
        if text.startswith((" ", "\t")):
            return       # an indented line: source or a message whose start was cut off
        kernel = _kernel_assert(text)
        m = LOG_ERROR.search(stripped) if kernel is None else None
        message = kernel or ((m["message"] or m.groupdict().get("nccl") or "") if m else
                             (stripped if level in ERROR_LEVELS else ""))
        if m is not None and "error:" in stripped[:m.start("message") or 0]:
            message = stripped     # "CUDA error: ...": the words before "error:" belong to the message
        if message:   # held back: it may be the log message of a traceback printed next
            s.log_error = TextException(type="", message=message[:MAX_MESSAGE], line=number,
                                        stream=s.name, kind="log", repeats=repeats)
        elif "(" in text and not stripped.startswith(LOGGED_ARGUMENTS) and (m := REPR.search(text)):
            # in a raise statement, literals written side by side are one string ("... NCCL " "built in")
            message = re.sub(f"{m['q']}\\s+{m['q']}", "", m["message"])
            self.found.append(TextException(type=m["type"], message=message[:MAX_MESSAGE], line=number,
                                            stream=s.name, repeats=repeats))
        elif level in ("W", "WARNING") and "[c10d]" in stripped:
            self.found.append(TextException(type="", message=stripped[:MAX_MESSAGE], line=number, stream=s.name,
                                            kind="warning", repeats=repeats))

    def _open_message(self, s: _Stream, exc: TextException, level: str, prefix: str = "") -> None:
        s.current, s.state, s.continuation, s.level, s.prefix, s.gap = exc, "message", 0, level, prefix, False

    def _note(self, s: _Stream, note: re.Match) -> None:
        target = s.current if s.state == "message" else s.last
        if s.state == "message":
            self._close(s)
        if target is None:
            target = next((e for e in reversed(self.found) if e.note is None), None)
        if target is not None and target.note is None:
            target.note = (note["id"], note["summary"], [])

    def _close(self, s: _Stream, partial: bool = False) -> None:
        if s.current is not None and s.state != "idle":
            if s.notebook and not s.current.type:       # cut before its last line: the header named it
                s.current.type, partial = s.notebook, True
            s.current.partial = partial or s.current.partial or not s.current.type
            s.current.message = SEPARATOR_TAIL.sub("", s.current.message.strip("\n"))
            if s.current.kind == "abort":        # an abort's text was to follow on the next line
                if s.current.message:
                    s.current.kind = "exception"
                else:
                    s.current.partial = True
            self.found.append(s.current)
            s.last, s.last_at = s.current, s.read
        s.current, s.state, s.wrapped_frame, s.notebook, s.shift = None, "idle", "", None, 0

    def finish(self) -> list[TextException]:
        for line in self.peeler.flush():
            if self.kept is not None:
                self.kept.append(_kept(line))
            self.feed_line(line)
        for s in self.streams.values():
            self._close(s, partial=s.state in ("frames", "source"))
            if s.log_error is not None:
                self.found.append(s.log_error)
                s.log_error = None
        for abort in self.awaiting_what:        # aborts whose what() line never came
            abort.kind, abort.partial = "abort", True
        self.found.extend(self.awaiting_what)
        self.awaiting_what = []
        return sorted(self.found, key=lambda e: e.line)


def parse_lines(lines: Iterable[str]) -> list[TextException]:
    return read_lines(lines)[0]


def read_lines(lines: Iterable[str], paste: bool = False) -> tuple[list[TextException], list[tuple[int, str]]]:
    """Every line read (no trigger skipping): the exceptions, and each peeled line's text. In a
    ``paste``, lines a terminal wrapped at its width are read as one for the exceptions; the texts
    stay as pasted (a wrap that lost its space, "the shape" / "in current", is for the quotes to
    try both ways)."""
    lines = list(lines)
    parser = Parser()
    peeled: list[Line] = []
    for i, line in enumerate(lines):
        following = (whole_line(lines[i + 1:i + 1 + MAX_PIECES]),) if i + 1 < len(lines) else ()
        peeled += parser.peel(i + 1, line, (whole_before(lines, i) if i else "",) + following)
    peeled += parser.peeler.flush()
    rows = wrapped_rows([line.text for line in peeled]) if paste else [(n, n + 1) for n in range(len(peeled))]
    for start, end in rows:
        line = peeled[start]
        if end - start > 1:
            line = dataclasses.replace(line, text="".join(piece.text for piece in peeled[start:end]))
        parser.number = line.number
        parser.feed_line(line)
    return parser.finish(), [_kept(line) for line in peeled]


def _announces(exc: TextException, line: str) -> bool:
    """A wrapper's one-line message that ends by announcing the error it carries, printed as the
    next line ("BackendCompilerFailed: backend='inductor' raised:" then "LoweringException: ..."):
    that error is the one it led to."""
    return "\n" not in exc.message and exc.message.rstrip().endswith(":") and ERROR_LINE.match(line) is not None


def _kept(line: Line) -> tuple[int, str]:
    """A peeled line as read for quotes: a warning says the process went on, and a log call's
    arguments were handed to the logger, so what they quote is no failure."""
    handled = line.level in WARNING_LEVELS or line.text.lstrip().startswith(LOGGED_ARGUMENTS)
    return line.number, "" if handled else line.text


def parse_text(text: str) -> list[TextException]:
    return parse_lines(text.splitlines())


def _cut_name(name: str) -> bool:
    """The start of a builtin exception's name, not a name: a line cut inside it."""
    return name not in BUILTIN_ERRORS and any(error.startswith(name) for error in BUILTIN_ERRORS)


def _unfinished(source: str) -> bool:
    """A statement left open: a string or a bracket its printed lines have not closed yet."""
    if not source or source.count("\n") >= MAX_SOURCE_LINES:
        return False
    return source.count('"') % 2 == 1 or notebook.unclosed(source) > 0


def to_facts(exc: TextException, message: str | None = None, type_name: str | None = None):
    """Facts for the matcher: innermost frame first, frames known by module and function name."""
    from enrich.facts import from_text
    frames = tuple(Frame(f.module, f.qualname, f.lineno, f.filename, _source=f._source, textual=True)
                   for f in reversed(exc.frames))
    return from_text(exc.inner or exc.type if type_name is None else type_name,
                     exc.message if message is None else message, frames)
