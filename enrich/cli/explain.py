"""``enrich explain``: the page of a catalog entry, or every error in logs.

Exit status: 0 when no error was found, 1 when some were, 2 on bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import sys
import zlib

from enrich.cli.catalog import lookup_entry, show_entry
from enrich.cli.inputs import STDIN, LogInput, live_lines, open_input, paths, text_stream
from enrich.cli.output import JSON_SCHEMA, CliError, add_color_option, print_json, use_color

DIGITS = re.compile(r"\d+")
QUIET = 0.5        # seconds without input after which a closed error is printed
OPEN_QUIET = 2.0   # ... and one whose message may still go on


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain", help="explain a catalog entry (ID), or every error in logs (PATH..., - or nothing for stdin)",
        description="With an ID: the catalog entry's page. With paths (files, globs, FIFOs, gzip), - or "
                    "nothing (standard input): every distinct error in the text. Exit status 0: no error "
                    "found, 1: errors found, 2: bad usage or unreadable input.")
    p.add_argument("targets", nargs="*", metavar="ID|PATH", help="a catalog ID, or log paths; - is standard input")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true",
                      help=f'one document: {{"schema": {JSON_SCHEMA}, "source": ..., "findings": [...]}}')
    form.add_argument("--jsonl", action="store_true", help="one JSON line per finding, as each is found")
    p.add_argument("--all", action="store_true", help="also the errors that follow from a root cause (folded by default)")
    p.add_argument("-f", "--follow", action="store_true",
                   help="live logs: print each finding as soon as it is complete (kubectl logs -f POD | "
                        "enrich explain -f -); a file is followed as it grows")
    add_color_option(p)
    p.set_defaults(run=explain)


def _reader():
    """The log reader, imported in this one place: ``findings(stream)`` and ``render_text(items, source, color)``."""
    from enrich import logs
    return logs


def explain(args: argparse.Namespace) -> int:
    targets = args.targets
    if not targets:
        if sys.stdin.isatty():
            raise CliError("explain needs a log file, - for standard input, or a catalog ID")
        targets = [STDIN]
    names = [name for target in targets for name in paths(target)]
    if len(targets) == 1 and not names and any(c in targets[0] for c in "*?"):
        raise CliError(f"no file matches {targets[0]}")
    if len(targets) == 1 and not names and not (args.jsonl or args.follow):
        return show_entry(lookup_entry(targets[0], "file or catalog entry"), args)
    missing = [target for target in targets if not paths(target)]
    if missing:
        raise CliError(f"no such file: {missing[0]}")
    color = use_color(args.color, sys.stdout)
    if args.follow:
        if len(names) != 1 or args.json:
            raise CliError("--follow reads one input and prints as it goes (use --jsonl for JSON)")
        return follow(open_input(names[0]), args.jsonl, color)
    report: list[tuple[str, list]] = []
    for name in names:
        source = open_input(name)
        items = _findings_of(source, args.all)
        report.append((source.name, items))
        if args.jsonl:
            for item in items:
                print_json(finding_json(item, source.name), lines=True)
        elif not args.json:
            print(_reader().render_text(items, source.name, color=color) + ("\n" if name != names[-1] else ""))
    if args.json:
        print_json({"schema": JSON_SCHEMA,
                    "source": report[0][0] if len(report) == 1 else [name for name, _ in report],
                    "findings": [finding_json(item, name) for name, items in report for item in items]})
    return 1 if any(items for _, items in report) else 0


def _findings_of(source: LogInput, all: bool = False) -> list:
    try:
        with text_stream(source) as stream:
            return _reader().findings(stream, all=all)
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise CliError(f"{source.name}: not a readable gzip stream ({error})") from None
    except OSError as error:
        raise CliError(f"cannot read {source.name}: {error.strerror or error}") from None


def finding_json(item, source: str) -> dict:
    return {"source": source, **item.as_json()}


def follow(source: LogInput, jsonl: bool, color: bool) -> int:
    """Print each finding as soon as it is complete, from a live input.

    The reader's line parser tells where an error ends: its traceback closed and a line that is
    neither blank nor a chain separator came, or the input went quiet (2 s while the parser still
    reads a message that may go on); that stretch of lines is then explained by ``findings``
    like a whole file. A repeat of an error already shown is not printed again."""
    from enrich.logs.reader import CHAINS, Parser

    reader = _reader()
    parser, pending, first, number, quiet = Parser(), [], 1, 0, 0
    shown: dict[tuple, object] = {}

    def flush() -> None:
        for item in reader.findings(io.StringIO("".join(pending))):
            item.line += first - 1
            key = (item.kind, item.exception, item.id, item.site, DIGITS.sub("#", item.message.split("\n")[0]))
            if key in shown:
                continue
            shown[key] = item
            if jsonl:
                print_json(finding_json(item, source.name), lines=True)
            else:
                block = reader.render_text([item], source.name, color=color).split("\n", 2)[-1]
                print(block.replace("1) ", f"{len(shown)}) ", 1) + "\n", flush=True)

    for line in live_lines(source, quiet=QUIET):
        quiet = quiet + 1 if line is None else 0
        if parser.open:
            complete = quiet * QUIET >= OPEN_QUIET
        else:
            complete = bool(parser.found) and (line is None or (line.strip() and line.strip() not in CHAINS))
        if complete:
            flush()
            parser, pending = Parser(), []
        if line is None:
            continue
        number += 1
        if not parser.open and not parser.found:
            pending, first = [], number     # nothing is open: the lines so far explain nothing
        pending.append(line)
        parser.feed(number - first + 1, line)
    if pending:
        flush()
    return 1 if shown else 0
