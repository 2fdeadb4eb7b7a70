"""Peel what collectors, process managers and pastes wrap around each line of a log.

A line's prefix is read as a run of metadata tokens: timestamps of any common shape, bracketed
or parenthesised process tags (``[2025-01-01 10:00:00 TP3]``, ``(EngineCore_DP0 pid=150)``,
``[rank0]:``, ``[pod/NAME/CONTAINER]``), source locations, log levels, ``name |`` columns,
syslog's ``host unit[pid]:``. Structured lines (CRI, docker json-file) are decoded first, and a
prefix that no token describes but that repeats on neighbouring lines (stern's ``pod
container``) is peeled too. Paste damage (``> `` quotes, code fences, pytest's ``E``, rich's
boxes, newlines collapsed into one line) is undone. What is left may be a JSON logger's record or
a JSON string's escaped traceback (enrich.logs.records): the lines it holds are read in its
place. Indentation under a prefix is kept: after the last token exactly one separating space goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace

from enrich.logs.paste import (BOX, REDRAWN, RICH_HEADER, RICH_PATH_PART, TRACEBACK, rich_line, split_collapsed,
                               split_redrawn)
from enrich.logs.records import escaped_traceback, record_text

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]"
                  r"|\^\[\[(?:\d{1,3};)*\d{1,3}m"                  # ESC as an editor shows it, "^["
                  r"|#033\[(?:\d{1,3};)*\d{1,3}m"                   # ESC as rsyslog escapes it
                  r"|\bESC\[(?:\d{1,3};)*\d{1,3}m"                   # ESC as a pager or a web page names it
                  r"|(?<![\w\[])\[(?:\d{1,3};)*\d{1,3}m")          # the last: ESC lost in a paste
LEVELS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL", "NOTICE", "TRACE")
ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL", "E", "F"})     # and glog's letters
TIME = (r"(?:\d{4}[-/]\d\d[-/]\d\d[T -]|\d\d[-/]\d\d[-/]\d{4}[-T ]|\d\d[-/]\d\d[ T]|[A-Z][a-z]{2} [ \d]\d )?"
        r"\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: ?(?:UTC|GMT))?")
TOKEN = re.compile(
    rf"(?P<time>{TIME})(?::(?= )|(?![\w:]))"
    r"|\[(?P<bracket>[^\[\]\n]{1,160})\](?P<colon>:)?"
    r"|\((?P<paren>[^()\n]{1,200}=[^()\n]{0,200})\)"
    r"|(?P<level>" + "|".join(LEVELS) + r")(?::(?:[\w.-]+:)?|(?= ))"
    r"|(?P<nccl>[\w.-]+:\d+:\d+) \[\d+\]"
    r"|(?P<glog>[IWEF])(?:\d{3,4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w./\\-]+:\d+| [\w./-]+\.\w{1,4}:\d+)\]"   # absl's too; Windows paths
    r"|(?P<location>[\w./-]+\.\w{1,4}:\d+)\]"                      # vLLM 0.6's "engine.py:366]"
    r"|(?P<pid>\d{1,7})(?= \[[\w./-]+\.\w{1,4}:\d+\])"                # "ERROR 56542 [engine.py:64]": a pid
    r"|(?P<compose>[A-Za-z0-9][\w.-]*) *\|(?= |$)"
    r"|(?P<label>\d{1,4}):(?= )"
    r"|(?P<bar> *\|)(?= )")                                               # a CI viewer's column
# after a timestamp only: syslog and journald's ``host unit[pid]:``
SYSLOG_TAG = re.compile(r"(?P<host>[\w.-]+) (?P<tag>[\w.@/-]+\[\d+\]):(?= |$)")
# after a timestamp only: Python logging's "%(asctime)s - %(name)s - %(levelname)s - %(message)s",
# with a request's id in brackets after the level in some servers' formats ("ERROR - [-] - ").
# Only an error's level is kept: servers log a request's failure as a WARNING ("POST /load -> 500:
# <error>"), whose quotes a warning's level would hide
DASHED = re.compile(r"-(?: [\w.<>:-]+ -)? (?P<level>" + "|".join(LEVELS) + r") -(?: \[[\w.:-]*\] -)?(?= |$)")
# tokens never indented content: a timestamp, glog's, vLLM's "ERROR 06-29 13:11:30", a process tag
# (after spaces or a tab: GitHub Actions' log viewer puts "<time> \t" before each line it copies)
STRONG = re.compile(rf"[ \t]+(?:{TIME}|[IWEF]\d{{3,4}} \d\d:\d\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d"
                    rf"|\([^()]*pid=|\[rank\d+\]:)")
REPLICA = re.compile(r"[-_]\d+$")
KINDS = ("time", "bracket", "paren", "level", "nccl", "glog", "location", "pid", "compose", "label", "bar")
CRI_TAG = re.compile(r"(?:stdout|stderr) [FP](?= |$)")     # a CRI line inside another wrapper
BRACKET_TIME = re.compile(TIME)
SOURCE_LOCATION = re.compile(r"^[\w./-]+\.\w+:\d+$")
GLOG_LEVEL = re.compile(r"^(?P<level>[IWEF])(?:\d{3,4}\s|\s)")
FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
LONE_TICK = re.compile(r"^`(?=\S)|(?<=\S)`\s*$")
DIGITS = re.compile(r"\d+")
NUMBERS = re.compile(r"^\d+/\d+(?:_\d+)?$")
POD_PATH = re.compile(r"^[\w.-]+/[\w.-]+/[\w.-]+$")
CRI = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d) (?P<stream>stdout|stderr) (?P<tag>[FP]) ?")
REPEATED = re.compile(r"\s*\[repeated (?P<n>\d+)x across cluster\]\s*$")
QUOTE = re.compile(r"^ {0,3}(?:>(?!>) ?)+")     # markdown allows three spaces before the mark
PYTEST = re.compile(r"^E(?P<pad> +|$)")
# pytest's progress letters ("tests/test_x.py ....F"), no newline after them, then faulthandler's line
PROGRESS_THEN_FAULT = re.compile(r"^(\s*)(?:\S+ )?[.FEsxX]+(?=Fatal [Pp]ython error: )")
# what a program logs at one level and means at another: TensorFlow logs a kernel's failing status
# as a warning ("W ...] OP_REQUIRES failed at nccl_ops.cc:104 : Internal: NCCL: ...") and raises
# it; vLLM logs its Hub metadata probe failing as an error (a local path is no repo id) and goes on
RELEVELLED = {"OP_REQUIRES failed at ": "E", "Error retrieving safetensors: ": "W"}
RELEVELLED_STARTS = tuple(RELEVELLED)
WORD = re.compile(r"^[A-Za-z][\w.-]*$")
# a CJK input method's full-width letters and punctuation ("NCCL error：unhandled") as ASCII, its
# full stop ("torch。cuda") as a dot; the width of "：" and "，" was their space. An editor's
# typographic quotes ("We couldn‘t connect to ‘https://huggingface.co‘") are the straight ones the
# program printed; Japanese corner brackets (「Cannot re-initialize CUDA ...」) are prose's
# quotation marks.
FULL_WIDTH = ({0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: 0x20, 0x3002: 0x2E}
              | dict.fromkeys((0x2018, 0x2019), 0x27)
              | dict.fromkeys((0x201C, 0x201D, 0x300C, 0x300D, 0x300E, 0x300F), 0x22))
FULL_WIDTH_PAUSE = re.compile("[\uff01\uff0c\uff1a\uff1b\uff1f] ?")
# never a tag: a traceback's words, an error's name, NCCL's own "init.cc:943 NCCL WARN ..."
NOT_PREFIX = re.compile(r"^(?:File|Traceback|frame|During|The|terminate called|[A-Z]\w*(?:Error|Exception|Warning)\b"
                        r"|\S+ NCCL (?:WARN|INFO|TRACE)\b)")


@dataclass(slots=True)
class Line:
    number: int
    text: str               # what the process wrote, indentation kept
    stream: str = ""        # the process tags the wrappers named, outermost first
    level: str = ""         # a log level a wrapper carried (ERROR, WARNING, E, W...)
    prefix: str = ""        # the shape of what was peeled before the text (digits dropped): one record, one shape
    repeats: int = 1        # Ray's "[repeated Nx across cluster]"


def unwrap(text: str) -> tuple[str, list[str], str]:
    """(content, streams, level) of one decoded line: every prefix token peeled."""
    streams: list[str] = []
    level, pos, after_time, after_tag = "", 0, False, False
    n = len(text)
    if text[:1] == " " and STRONG.match(text):     # a pasted block indented as a whole
        pos = len(text) - len(text.lstrip(" "))
    while pos < n:
        token = _token(text, pos, after_time, after_tag)
        if token is None:
            break
        end, stream, token_level, is_time = token
        if stream:
            streams.append(stream)
        level = token_level or level
        spaces = end
        while spaces < n and text[spaces] in " \t":      # Ray's logger puts a tab after its time
            spaces += 1
        # a label right after a time or a process tag is a launcher's under a collector's ("sglang-1  | 201: ",
        # "<time> 201: "); indented, it is content
        after_time, after_tag = is_time, (is_time or bool(stream)) and spaces - end <= 1
        following = _token(text, spaces, after_time, after_tag) if spaces < n else None
        if following is not None and not _indented_words(text, end, spaces) and not _indented_time(text, end, spaces, following):
            pos = spaces
            continue
        pos = end + (1 if spaces > end else 0)    # one separator goes, the indentation stays
        if spaces == n:
            pos = n
        break
    return text[pos:], streams, level


def _indented_time(text: str, end: int, start: int, token: tuple) -> bool:
    """A time indented under the prefix that a bare line indented alone would keep as content:
    "         [20:46:58] /src/x.cc:115: InternalError: ..." under Ray's tag (a full date is peeled)."""
    return token[3] and start - end > 2 and STRONG.match(text, end) is None


def _indented_words(text: str, end: int, start: int) -> bool:
    """Content indented under the prefix that only looks like a process tag: a wrapped message's
    "(rank=8, size=16, local=[127.0.0.1])". An indented tag names its pid."""
    return start - end > 1 and text[start] == "(" and STRONG.match(text, end) is None


def _token(text: str, pos: int, after_time: bool, after_tag: bool = False) -> tuple[int, str, str, bool] | None:
    """(end, stream, level, is_time) of a metadata token at ``pos``; None where content starts.
    ``after_tag``: a time or a process tag came just before (a launcher's "201: " rank label
    under a collector's "sglang-1  | ")."""
    if after_time:
        m = SYSLOG_TAG.match(text, pos) or CRI_TAG.match(text, pos)
        if m:
            return m.end(), m["tag"] if m.re is SYSLOG_TAG else "", "", False
        m = DASHED.match(text, pos)
        if m:
            return m.end(), "", m["level"] if m["level"] in ERROR_LEVELS else "", False
    m = TOKEN.match(text, pos)
    if m is None:
        return None
    kind = next(k for k in KINDS if m[k] is not None)
    if kind == "time":
        return m.end(), "", "", True
    if kind == "bracket":
        return _bracket(m)
    if kind == "paren":
        return m.end(), m["paren"].strip(), "", False
    if kind == "level":
        return m.end(), "", m["level"], False
    if kind == "glog":
        return m.end(), "", m["glog"], False
    if kind == "location":
        return m.end(), "", "", False
    if kind == "label" and pos and not after_tag:
        return None
    if kind == "bar":
        return m.end(), "", "", False
    if kind == "compose" and not text[m.end():].strip() and not REPLICA.search(m[kind]):
        return None       # "Config |" alone: a table's cell; compose names a container "web-1" on an empty line
    return m.end(), m[kind], "", False


def _bracket(m: re.Match) -> tuple[int, str, str, bool] | None:
    inner = m["bracket"].strip()
    glog = GLOG_LEVEL.match(inner)
    timed = BRACKET_TIME.search(inner)
    if m["colon"]:                                    # torchrun's [rank0]:, [default0]:
        return m.end(), inner if not timed else "", glog["level"] if glog else "", False
    if inner in LEVELS:
        return m.end(), "", inner, False
    if timed:                                         # sglang's [date time TP3], c10d's [E611 time file:line]
        if glog and SOURCE_LOCATION.match(inner.rsplit(" ", 1)[-1]):
            return m.end(), "", glog["level"], False
        rest = (inner[:timed.start()] + inner[timed.end():]).split()
        return m.end(), " ".join(w for w in rest if not SOURCE_LOCATION.match(w)), "", True
    if SOURCE_LOCATION.match(inner) or (glog and SOURCE_LOCATION.match(inner.rsplit(" ", 1)[-1])):
        return m.end(), "", glog["level"] if glog else "", False   # [core.py:948], [E ProcessGroupNCCL.cpp:455]
    if POD_PATH.match(inner):                         # kubectl logs --prefix
        return m.end(), inner, "", False
    if NUMBERS.match(inner):                          # [7], [0/0]: a device, a compile id
        return m.end(), "", "", False
    return None


def repeated_prefix(text: str, neighbours: list[str], known: Container[str] = ()) -> int:
    """Length of a prefix (one or two words) this line shares with a neighbouring line, when it
    looks like a tag rather than text: stern's ``pod container``, a collector's host name.
    ``known``: tags learnt on earlier lines, which win when the line starts with one."""
    if not text or text[0] in " \t[(\"'" or NOT_PREFIX.match(text):
        return 0
    words = text.split(" ", 2)
    first = words[0]
    if (len(words) < 2 or len(first) > 80 or len(first) < 3 or not any(c.isalnum() for c in first) or first.endswith((":", ",", ".")) or '"' in first
            or not any(c in first for c in "-_/.=@:0123456789")):
        return 0
    candidates = [(len(first) + 1, True)]     # (end, whether neighbours may differ in digits)
    second = words[1] if len(words) == 3 else ""
    if (len(second) > 1 and WORD.match(second) and not (second[0].isupper() and second[1:].islower())
            and _token(text, len(first) + 1, False) is None and not NOT_PREFIX.match(text[len(first) + 1:])):
        # a tag and a word (stern's pod and container; not pytest's lone E), not a tag and content
        # (a capitalised word starts a sentence: two lines of a message may start alike)
        candidates.insert(0, (len(first) + len(second) + 2, False))
    for end, _ in candidates:
        if text[:end] in known:
            return end
    for end, by_shape in candidates:
        head = text[:end]
        shape_of_head = _shape(head)
        for other in neighbours:
            if other.startswith(head) or (by_shape and other[end - 1:end] == " " and _shape(other[:end]) == shape_of_head):
                return end
    return 0


def _shape(text: str) -> str:
    return re.sub(r"\d", "0", text)


MAX_TAGS = 64     # repeated prefixes remembered: a few hosts, pods and containers
# tags peeled from one line: a program's own two (a logger and its pid) under a collector's
TAG_DEPTH = 3


class Peeler:
    """Stateful unwrapping of a stream of raw lines: CRI and docker partial lines are joined,
    pytest's ``E`` column keeps its indentation, repeated prefixes are learnt from neighbours."""

    def __init__(self):
        self.partial: dict[str, str] = {}      # CRI / docker stream -> text of its unfinished line
        self.pads: dict[str, int | None] = {"outer": None, "inner": None}   # pytest's E column, per level
        self.tags: set[str] = set()            # repeated prefixes learnt so far
        self.previous = ""                     # the last line put together (CRI/docker pieces joined)
        self.panel = False                     # inside a box of text, not a traceback's
        self.path_head = ""                    # a frame's path rich wrapped onto the next line
        self.escaped: list[str] = []           # a JSON string's traceback cut over lines: its pieces so far
        self.escaped_like: Line | None = None  # and the line it started on

    @property
    def pending(self) -> bool:
        """A line is still to come: a CRI or docker piece, the rest of a frame rich wrapped or of
        a JSON string's traceback."""
        return bool(self.partial or self.path_head or self.escaped_like)

    def peel(self, number: int, raw: str, neighbours: tuple[str, ...] = ()) -> list[Line]:
        text = raw.rstrip("\n")
        if "\r" in text:
            text = text.rstrip("\r").rsplit("\r", 1)[-1]
        decoded = self._decode(text)
        if decoded is None:
            return []
        text, outer = decoded
        return self._peel_decoded(number, text, outer, neighbours)

    def flush(self) -> list[Line]:
        """The lines of a JSON string's traceback the input ended in (cut before the string did)."""
        like, text = self.escaped_like, "".join(self.escaped)
        self.escaped, self.escaped_like = [], None
        return _parts(text, like) if like is not None else []

    def _structured(self, content: str, like: Line) -> tuple[list[Line], list[Line] | None]:
        """(the lines of a JSON string's traceback that this line shows had ended; this line's own
        lines where it is a JSON record or holds such a string: none while the string goes on)."""
        if content[:1] == "{":
            text = record_text(content)
            if text is not None:           # each line it holds is peeled in turn, under this line's tags
                return self.flush(), [line for part in text.split("\n")
                                      for line in self._peel_decoded(like.number, part, like.stream, ())]
        if self.escaped_like is None and "\\n" not in content:
            return [], None
        piece = escaped_traceback(content, self.escaped_like is not None)
        if piece is None:
            return self.flush(), None
        text, going_on = piece
        if going_on and len(self.escaped) < MAX_PIECES:   # cut mid-line: the rest is on the next line
            self.escaped.append(text)
            self.escaped_like = self.escaped_like or like
            return [], []
        like = self.escaped_like or like      # its end, or as many pieces as a line is joined from
        text, self.escaped, self.escaped_like = "".join(self.escaped) + text, [], None
        return [], _parts(text, like)

    def _peel_decoded(self, number: int, text: str, outer: str, neighbours: tuple[str, ...]) -> list[Line]:
        for shown in ("^M", "#015"):   # a carriage return as an editor shows it, or as rsyslog escapes it
            if text.endswith(shown):
                text = text[:-len(shown)]
        previous, self.previous = self.previous, text
        if not text.isascii():
            text = FULL_WIDTH_PAUSE.sub(lambda m: chr(ord(m.group()[0]) - 0xFEE0) + " ", text).translate(FULL_WIDTH)
        content, streams, level, repeats = self.content(text, neighbours[1:2])
        if outer and not streams and not content.strip():
            return [Line(number, "", outer, level, True)]
        others = []
        if neighbours and content and content[0] not in " \t":
            # (previous, next) raw lines; a CRI piece before this line is this line's own start, so
            # the line before it is the last one put together; a piece after it starts the next
            others = [_neighbour(previous if k == 0 and cri_piece(line) else line, following=k == 1)
                      for k, line in enumerate(neighbours)]
        for _ in range(TAG_DEPTH if others else 0):     # a tag, and more under it
            shared = repeated_prefix(content, others, self.tags)
            if not shared:
                break
            if len(self.tags) < MAX_TAGS:
                self.tags.add(content[:shared])
            # the neighbours lose the same tag and what it wrapped (a level), as this line does
            others = [unwrap(o[shared:])[0] if o.startswith(content[:shared]) else o for o in others]
            streams.append(content[:shared - 1])
            content, more, inner_level = unwrap(content[shared:])
            streams, level = streams + more, inner_level or level
        following = others[1] if len(others) > 1 else ""      # the next line, its tags peeled
        content, more, inner_level = self.inner(content, following)
        streams, level = streams + more, inner_level or level
        if level and content.startswith(RELEVELLED_STARTS):
            level = next(meant for start, meant in RELEVELLED.items() if content.startswith(start))
        stream = " ".join(([outer] if outer else []) + streams)
        clean = ANSI.sub("", text) if "\x1b" in text or "[" in text else text
        at = clean.rfind(content) if content else len(clean)    # inside the line where a fence was taken off it
        prefix = DIGITS.sub("", clean[:at]) if at >= 0 else ""
        line = Line(number, content, stream, level, prefix, repeats)
        flushed, structured = self._structured(content, line)
        if structured is not None:
            return flushed + structured
        if TRACEBACK in content and ' File "' in content or " File \"" in content and content.count('File "') > 1:
            return flushed + [replace(line, text=part) for part in split_collapsed(content)]
        if "/s]" in content and REDRAWN.search(content):
            return flushed + [replace(line, text=part) for part in split_redrawn(content)]
        return flushed + [line]

    def content(self, text: str, following: tuple[str, ...] = ()) -> tuple[str, list[str], str, int]:
        """Colour codes gone, paste damage outside the prefixes undone, prefix tokens peeled:
        (content, streams, level, repeats). ``following``: the next raw line, if known."""
        if "\x1b" in text or "m" in text and "[" in text:
            text = ANSI.sub("", text)
        repeats = 1
        if text.endswith("cluster]"):
            m = REPEATED.search(text)
            if m:
                repeats, text = int(m["n"]), text[:m.start()]
        text = unmark(text)
        if text[:1] == "E":
            text = self._pytest(text, "outer", following[0] if following else "")
        else:
            self.pads["outer"] = None
        content, streams, level = unwrap(text)
        return content, streams, level, repeats

    def inner(self, content: str, following: str = "") -> tuple[str, list[str], str]:
        """Paste damage inside the prefixes: quotes and pytest's column of prefixed lines, rich's
        boxes, code fences. ``following``: the next line inside the same prefixes, if known."""
        streams, level = [], ""
        if "Fatal" in content:
            content = PROGRESS_THEN_FAULT.sub(r"\1", content, count=1)
        if content != (unquoted := unmark(content)):
            content, streams, level = unwrap(unquoted)
        elif content[:1] == "E" and PYTEST.match(content):
            content, streams, level = unwrap(self._pytest(content, "inner", following))
        else:
            self.pads["inner"] = None        # the column ended
        if content and content[0] in BOX:
            if content[0] in "╭┌╰└":          # a box opens (a traceback's, or a panel of text) or closes
                self.panel = content[0] in "╭┌" and RICH_HEADER.match(content) is None
            head, self.path_head = self.path_head, ""
            text = rich_line(content, self.panel, head)
            part = None if self.panel or text else RICH_PATH_PART.match(content)
            if part is not None:
                self.path_head = part["path"]
            content = text
        elif content.lstrip()[:3] in ("```", "~~~"):
            fence = FENCE.match(content)
            content = "" if fence else content.strip().strip("`~")   # a fence ends or starts a block
        return content, streams, level

    def _pytest(self, content: str, level: str, following: str = "") -> str:
        m = PYTEST.match(content)
        if m is None:
            self.pads[level] = None
            return content
        if not content[1:].strip():
            return ""                          # a blank "E" line says nothing of the column's width
        pad, known = len(m["pad"]), self.pads[level]
        after = PYTEST.match(following.rstrip("\n"))
        if after is not None and after["pad"]:
            pad = min(pad, len(after["pad"]))    # the next line may show the column narrower
        if known is None or (pad and pad < known):
            known = self.pads[level] = pad     # the column is as wide as its least indented line
        return content[1 + min(pad, known):]

    def _decode(self, text: str) -> tuple[str, str] | None:
        """CRI and docker json-file lines to (text, stream name); None while a line is partial."""
        if text[:1] == "{" and '"log"' in text:
            try:
                record = json.loads(text)
            except (ValueError, RecursionError):
                record = None
            if isinstance(record, dict) and isinstance(record.get("log"), str):
                key = str(record.get("stream", ""))
                log = self.partial.pop(key, "") + record["log"]
                if not log.endswith("\n"):
                    self.partial[key] = log
                    return None
                return log.rstrip("\n").rsplit("\r", 1)[-1], ""
        m = CRI.match(text) if text[:1].isdigit() else None
        if m:
            key = m["stream"]
            content = self.partial.pop(key, "") + text[m.end():]
            if m["tag"] == "P":
                self.partial[key] = content
                return None
            return content, ""
        return text, ""


def _parts(text: str, like: Line) -> list[Line]:
    """Lines of text that one line held, each as that line was peeled."""
    return [replace(like, text=part) for part in text.split("\n")]


def unmark(text: str) -> str:
    """The line without its markdown quote marks and a lone backtick, before or after them."""
    return untick(unquote(untick(text)))


def untick(text: str) -> str:
    """The line without a lone backtick at its start or end: an inline code span opened or closed
    on another line."""
    if "`" in text and text.count("`") == 1:
        return LONE_TICK.sub("", text, count=1)
    return text


def unquote(text: str) -> str:
    """The line without its markdown quote marks, if it has any."""
    if text[:1] == ">" or text[:1] == " " and text[:4].lstrip(" ")[:1] == ">":
        return QUOTE.sub("", text, count=1)
    return text


MAX_PIECES = 64     # CRI pieces joined into one neighbouring line


def _cri(raw: str) -> re.Match | None:
    return CRI.match(raw) if raw[:1].isdigit() else None


def unsplit(text: str) -> str:
    """The text without kubelet's CRI prefixes, each line's pieces joined."""
    if "std" not in text:
        return text
    lines, piece = [], ""
    for raw in text.splitlines():
        m = _cri(raw)
        if m is not None and m["tag"] == "P":
            piece += raw[m.end():]
            continue
        lines.append(piece + (raw[m.end():] if m else raw))
        piece = ""
    return "\n".join(lines + ([piece] if piece else []))


def whole_line(raws: Iterable[str]) -> str:
    """The first of these raw lines as its process wrote it: kubelet's CRI pieces ("P") joined up
    to the full one, so a neighbour shows its whole prefix however short the pieces were cut."""
    joined = ""
    for n, raw in enumerate(raws):
        m = _cri(raw)
        if n == 0 and (m is None or m["tag"] != "P"):
            return raw
        if m is None or n >= MAX_PIECES:
            break
        joined = joined or raw[:m.start("tag")] + "F "
        joined += raw[m.end():].rstrip("\n")
        if m["tag"] != "P":
            break
    return joined


def whole_before(raws: list[str], i: int) -> str:
    """The line before ``raws[i]`` as its process wrote it: where the raw line just before ends
    kubelet's CRI pieces ("P", "P", "F"), the pieces joined from the first, so the neighbour shows
    the prefix its start holds. (A piece just before is ``raws[i]``'s own start: left as it is.)"""
    start = i - 1
    if cri_piece(raws[start]):
        return raws[start]
    while start > 0 and i - start < MAX_PIECES and cri_piece(raws[start - 1]):
        start -= 1
    return whole_line(raws[start:i])


def cri_piece(raw: str) -> bool:
    """A piece of a line that kubelet split, not its last (CRI tag "P")."""
    m = _cri(raw)
    return m is not None and m["tag"] == "P"


def _neighbour(raw: str, following: bool = False) -> str:
    """A neighbouring line's content, for comparing prefixes (no state is touched). A CRI piece
    after the line starts the next line; one before it is a piece of the line itself."""
    text = raw.rstrip("\n")
    m = CRI.match(text)
    if m:
        if m["tag"] == "P" and not following:
            return ""
        text = text[m.end():]
    elif text.startswith('{"'):
        try:
            text = str(json.loads(text).get("log", "")).rstrip("\n")
        except (ValueError, AttributeError, RecursionError):
            pass
    text = unquote(ANSI.sub("", text))
    if text[:1] == "E":
        text = PYTEST.sub("", text, count=1)
    return unwrap(text)[0]
