"""The inputs of ``enrich explain``: paths, globs, FIFOs, pipes and standard input; gzip is read
transparently, a large file shows its progress on a terminal, a live input is read as it comes."""

from __future__ import annotations

import codecs
import glob
import gzip
import io
import os
import select
import stat
import sys
import time
import zlib
from dataclasses import dataclass
from typing import IO, Iterator

from enrich.cli.output import CliError, Progress

GZIP_MAGIC = b"\x1f\x8b"
PROGRESS_FROM = 32 << 20      # bytes: smaller inputs are read before anyone would look at a bar
STDIN = "-"


@dataclass
class LogInput:
    name: str                 # as the user gave it; "standard input" for -
    binary: IO[bytes]
    size: int | None = None   # regular files only
    regular: bool = False


def paths(target: str) -> list[str]:
    """What a target names to read: itself, or what it matches as a glob (quoted globs too:
    `enrich explain 'rank*.log'`); nothing when it is no path (then it may be a catalog ID)."""
    if target == STDIN or os.path.lexists(target):
        return [target]
    return sorted(glob.glob(target)) if glob.has_magic(target) else []


def open_input(name: str) -> LogInput:
    if name == STDIN:
        return LogInput("standard input", sys.stdin.buffer)
    if os.path.isdir(name):
        raise CliError(f"{name} is a directory: give the log files in it, e.g. {os.path.join(name, '*.log')}")
    try:
        binary = open(name, "rb")
        info = os.fstat(binary.fileno())
    except OSError as error:
        raise CliError(f"cannot read {name}: {error.strerror or error}") from None
    regular = stat.S_ISREG(info.st_mode)
    return LogInput(name, binary, info.st_size if regular else None, regular)


def text_stream(source: LogInput, progress: bool = True) -> IO[str]:
    """The input as text (UTF-8, undecodable bytes replaced), gunzipped when it starts like gzip."""
    buffered = source.binary if hasattr(source.binary, "peek") else io.BufferedReader(source.binary)
    raw: IO[bytes] = buffered
    if buffered.peek(2)[:2] == GZIP_MAGIC:
        raw = gzip.GzipFile(fileobj=buffered, mode="rb")
    text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
    if progress and source.size and source.size >= PROGRESS_FROM and sys.stderr.isatty():
        return _WithProgress(text, Progress(source.name, source.size, buffered.tell))
    return text


class _WithProgress:
    """A text stream that redraws a progress line as it is read."""

    def __init__(self, stream: IO[str], progress: Progress):
        self.stream, self.progress = stream, progress

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.progress.close()
        self.stream.close()

    def read(self, size: int = -1) -> str:
        text = self.stream.read(size)
        self._step(text)
        return text

    def readline(self, size: int = -1) -> str:
        text = self.stream.readline(size)
        self._step(text)
        return text

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def _step(self, text: str) -> None:
        if text:
            self.progress.update()
        else:
            self.progress.close()


def live_lines(source: LogInput, quiet: float = 0.5) -> Iterator[str | None]:
    """Lines as they arrive, and None whenever the input has been quiet for ``quiet`` seconds.

    A pipe or FIFO ends when its writer closes it; a regular file is followed as it grows
    (like ``tail -f``) until interrupted. Gzip is decompressed as it streams."""
    fd = source.binary.fileno()
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    unzip: zlib._Decompress | None = None
    started, carry = False, ""
    while True:
        if not source.regular and not select.select([fd], [], [], quiet)[0]:
            yield None
            continue
        data = os.read(fd, 1 << 16)
        if not data:
            if not source.regular:
                break
            yield None
            time.sleep(quiet)
            continue
        if not started:
            started = True
            if data[:2] == GZIP_MAGIC:
                unzip = zlib.decompressobj(wbits=31)
        text = carry + decode(unzip.decompress(data) if unzip else data)
        *lines, carry = text.split("\n")
        for line in lines:
            yield line + "\n"
    carry += decode(b"", final=True)
    if carry:
        yield carry
