"""What every command shares: one-line errors, the argument parser, colour, JSON, progress."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import IO, Any

JSON_SCHEMA = 1   # version of the documents `--json` and `--jsonl` print


class CliError(Exception):
    """An error the user can act on: printed as one ``enrich: ...`` line, exit ``code``."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (exit 2) instead of the usage block."""

    def error(self, message: str):
        prog = self.prog if self.prog.startswith("enrich") else f"enrich {self.prog}"
        raise CliError(f"{message} (see `{prog} --help`)")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the output (auto: on a terminal, unless NO_COLOR is set or FORCE_COLOR is)")


def use_color(choice: str, stream: IO[str]) -> bool:
    """--color first, then NO_COLOR (https://no-color.org), then FORCE_COLOR, then whether it is a terminal."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "").lower() not in ("", "0", "false", "no"):
        return True
    return stream.isatty()


def bold(text: str, color: bool) -> str:
    return f"\x1b[1m{text}\x1b[0m" if color else text


def print_json(document: Any, lines: bool = False) -> None:
    """One indented document, or (``lines``) one compact line, flushed so a reader downstream sees it now."""
    sys.stdout.write(json.dumps(document, separators=(",", ":")) if lines else json.dumps(document, indent=2))
    sys.stdout.write("\n")
    sys.stdout.flush()


class Progress:
    """``enrich: reading NAME 37% (370/1000 MiB)`` on stderr, redrawn at most 5 times a second."""

    def __init__(self, name: str, total: int, position):
        self.name, self.total, self.position = name, total, position   # position(): bytes consumed so far
        self.shown = 0.0

    def update(self) -> None:
        now = time.monotonic()
        if now - self.shown < 0.2:
            return
        self.shown = now
        done = min(self.position(), self.total)
        sys.stderr.write(f"\renrich: reading {self.name} {100 * done // self.total:3d}% "
                         f"({done >> 20}/{self.total >> 20} MiB)")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = 0.0
