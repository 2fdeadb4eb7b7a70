"""Read a large log in blocks: only the lines near a trigger word reach the parser, the rest is
skipped by one scan per block, so memory stays bounded and large logs go fast."""

from __future__ import annotations

import functools
import re
from typing import IO

from enrich.logs.peel import MAX_PIECES, cri_piece, whole_before, whole_line
from enrich.logs.reader import Parser, TextException

# A line is looked at in Python only if it holds one of these: found in one pass by an
# Aho-Corasick automaton over the block's bytes where the `logs` extra (ahocorasick-rs) is
# installed. Else the words that start with a common letter each with str.find, which runs far
# faster than a regex alternation of them, and the words that start with a capital, a bracket or
# an x in one alternation: their first characters are rare enough in logs that it beats a pass of
# str.find for each ("xit" stands for torchrun's "exitcode" and a container's "Exit Code" or
# "exited with code", "xception" for any exception).
TRIGGERS = ("Traceback (most", "rror", "xception", "ERROR", "CRITICAL", "FATAL", "WARN ", "ssertion", "terminat",
            'File ', "[c10d]", "[METAL]", "OutOfResources", "stderr P ", "NCCL INFO", "ProcessGroupNCCL.cpp",
            "xit", "FAILED: ", "ailed", "ailure",   # BackendCompilerFailed, glog's "E0519 ... compilation failed"
            "TritonMissing",           # inductor's, printed without a traceback on a machine with no Triton
            "OfflineModeIsEnabled",    # huggingface_hub's, whose class name says neither Error nor Exception
            "OOM", "Out of memory", "Out Of Memory", "Killed process",   # the OOM killer's reports
            "out of memory",           # an allocator's ("NPU out of memory.") in a record that names no error
            "E tensorflow/", "E external/",   # TensorFlow's and XLA's absl records at error level
            "\u2502 /")                # a frame of rich's boxed traceback cut before its header
RARE_START = re.compile(r"[A-Z\[x]")
RARELY_STARTED = re.compile("|".join(re.escape(word) for word in TRIGGERS if RARE_START.match(word)))
FOUND_ONE_BY_ONE = tuple(word for word in TRIGGERS if not RARE_START.match(word))
GLOG_ERROR = re.compile(r"E\d{4} \d\d:\d\d:\d\d")    # "E1128 16:31:49.479285 227 x.cc:563] Invalid argument: ..."
BLOCK = 1 << 22
KEPT = 20_000      # peeled lines kept for what they show (the programs at work), at most


def scan(stream: IO[str], kept: list[tuple[int, str]] | None = None) -> list[TextException]:
    """Parse a text stream block by block; lines far from any trigger are never split out.
    ``kept``: a list to receive the lines read, peeled (the first KEPT of them)."""
    parser = Parser()
    parser.kept = kept
    number, carry, last = 0, "", ""     # last: the block's last line, the next block's first neighbour
    while True:
        if kept is not None and len(kept) >= KEPT:    # checked per block; the overshoot is dropped below
            parser.kept = None
        block = stream.read(BLOCK)
        text = carry + block
        if not block:
            if text:
                _feed_block(parser, text, number, whole=True, before=last)
            break
        cut = text.rfind("\n") + 1
        if cut == 0:
            carry = text
            continue
        number = _feed_block(parser, text[:cut], number, before=last)
        carry, last = text[cut:], text[text.rfind("\n", 0, cut - 1) + 1:cut]
    if kept is not None:
        del kept[KEPT:]
    return parser.finish()


def _line_at(text: str, start: int) -> tuple[str, int]:
    end = text.find("\n", start)
    end = len(text) if end < 0 else end + 1
    return text[start:end], end


def _lines_from(text: str, start: int):
    while start < len(text):
        line, start = _line_at(text, start)
        yield line


def _start_before(text: str, start: int) -> int:
    """Where the line before the one at ``start`` begins."""
    return text.rfind("\n", 0, max(start - 1, 0)) + 1


def _neighbour(text: str, start: int, line: str) -> str:
    """``line``, which starts at ``start``, as a neighbour: kubelet's CRI pieces joined into the
    whole line."""
    return whole_line(_lines_from(text, start)) if line[:1].isdigit() else line


def _before(text: str, start: int, line: str) -> str:
    """``line``, the raw line that ends at ``start``, as the neighbour before: the whole line where
    kubelet split it into CRI pieces (as ``read_lines`` gives it)."""
    if not line[:1].isdigit():
        return line
    raws, at = [line], start - len(line)
    while 0 < at and len(raws) < MAX_PIECES and (len(raws) == 1 or cri_piece(raws[0])):
        before = _start_before(text, at)
        raws.insert(0, text[before:at])
        at = before
    return whole_before(raws, len(raws))


def _feed_block(parser: Parser, text: str, number: int, whole: bool = False, before: str = "") -> int:
    """Feed the lines of ``text`` that matter; returns the line count after it. ``before``: the
    line before the block."""
    pos = 0
    previous = ""
    hits = _trigger_positions(text)
    if parser.open or GLOG_ERROR.match(text):   # a record open at the last block's end, or a glog error record
        hits.insert(0, 0)
    for hit in hits:
        if hit < pos:
            continue
        start = text.rfind("\n", 0, hit) + 1
        number += text.count("\n", pos, start)
        if start > pos or not previous:
            at = _start_before(text, start)
            previous = text[at:start] if start else before
            if start > pos and at >= pos and previous.strip():
                # the line just before, unread: a record at an error level without a trigger word
                # (glog's "E0403 ... metadata: ...") may lead the traceback that follows
                prior = text[_start_before(text, at):at] if at else before
                parser.feed(number, previous, (prior, _neighbour(text, start, _line_at(text, start)[0])))
        pos = start
        line, end = _line_at(text, pos)
        while pos < len(text):   # line by line while a traceback is open
            following, after = _line_at(text, end) if end < len(text) else ("", end)
            number += 1
            before_line = _before(text, pos, previous)
            parser.feed(number, line, (before_line, _neighbour(text, end, following)) if following else (before_line,))
            previous, line, pos, end = line, following, end, after
            if not parser.open and not GLOG_ERROR.match(line):   # a glog error record may carry no trigger word
                break
    number += text.count("\n", pos)
    if whole and text and not text.endswith("\n") and pos < len(text):
        number += 1
    return number


@functools.cache
def _automaton():
    try:
        from ahocorasick_rs import BytesAhoCorasick
    except ImportError:
        return None
    return BytesAhoCorasick([word.encode() for word in TRIGGERS])


def _trigger_positions(text: str) -> list[int]:
    automaton = _automaton()
    if automaton is not None:
        if text.isascii():                              # byte offsets are character offsets
            return [start for _, start, _ in automaton.find_matches_as_indexes(text.encode("ascii"))]
        data = text.encode("utf-8", "surrogatepass")    # a progress bar's blocks, a CJK log line
        hits, chars, last = [], 0, 0
        for _, start, _ in automaton.find_matches_as_indexes(data):
            chars += len(data[last:start].decode("utf-8", "surrogatepass"))   # each byte decoded once
            last = start
            hits.append(chars)
        return hits
    hits = [m.start() for m in RARELY_STARTED.finditer(text)]
    ascii_only = text.isascii()
    for word in FOUND_ONE_BY_ONE:
        if ascii_only and not word.isascii():
            continue
        at = text.find(word)
        while at >= 0:
            hits.append(at)
            end = text.find("\n", at)
            at = text.find(word, end + 1) if end >= 0 else -1   # one hit a line is enough
    hits.sort()
    return hits
