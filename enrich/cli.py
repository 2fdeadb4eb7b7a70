"""The ``enrich`` command: ``explain ID``, ``run -- CMD``, ``demo``."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from enrich.catalog import Entry, get_catalog


def entry_page(entry: Entry) -> str:
    """The terminal page of one catalog entry."""
    def para(text: str, hang: int = 0) -> str:
        return textwrap.fill(" ".join(text.split()), width=88, initial_indent="  ",
                             subsequent_indent="  " + " " * hang)

    lines = [f"{entry.id}: {entry.title}", f"  engine: {entry.engine}   component: {entry.component}"
             + (f"   versions: {entry.versions}" if entry.versions else ""), "", "What it means", para(entry.meaning),
             "", "Usual causes"]
    lines += [para(f"- {cause}", 2) for cause in entry.causes]
    lines += ["", "Fixes (enrich fills in the values of the failing process)"]
    lines += [para(f"{i}. {' / or: '.join(alts)}", 3) for i, alts in enumerate(entry.fixes, 1)]
    lines += ["", "Recognised by"]
    lines.append(f"  exceptions: {', '.join(entry.exceptions)}")
    if entry.message is not None:
        lines.append(f"  message:    {entry.message.pattern}")
    lines += [f"  raise site: {site}" for site in entry.sites]
    if entry.source is not None:
        lines.append(f"  source:     {entry.source.pattern}")
    lines += ["", "Samples"]
    for sample in entry.samples:
        lines.append(f"  {sample.message or '(bare assert) ' + (sample.source or '')}")
        lines.append(f"    from {sample.origin}")
    if entry.links:
        lines += ["", "Source"] + [f"  {link}" for link in entry.links]
    return "\n".join(lines)


def explain(args: argparse.Namespace) -> int:
    if args.target == "-" or Path(args.target).is_file():
        return explain_log(args)
    args.id = args.target
    catalog = get_catalog()
    entry = catalog.entries.get(args.id)
    if entry is None:
        near = [i for i in catalog.entries if args.id.lower() in i]
        print(f"enrich: no catalog entry {args.id!r}" + (f"; did you mean: {', '.join(near)}" if near else ""),
              file=sys.stderr)
        return 2
    print(entry_page(entry))
    return 0


def explain_log(args: argparse.Namespace) -> int:
    from enrich.findings import findings, render_text

    if args.target == "-":
        items = findings(sys.stdin)
    else:
        with open(args.target, encoding="utf-8", errors="replace", newline="") as stream:
            items = findings(stream)
    if args.json:
        print(json.dumps([f.as_json() for f in items], indent=2))
    else:
        print(render_text(items, "standard input" if args.target == "-" else args.target,
                          color=sys.stdout.isatty()))
    return 0


def demo(args: argparse.Namespace) -> int:
    from enrich.demo import main
    return main()


def _run(command: list[str]) -> int:
    from enrich.launcher import run
    return run(command[1:] if command[:1] == ["--"] else command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="enrich", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("explain", help="explain a catalog entry (ID), or every error in a log file (PATH, - for stdin)")
    p.add_argument("target", metavar="ID|PATH|-")
    p.add_argument("--json", action="store_true", help="for a log: one JSON object per finding")
    p.set_defaults(run=explain)
    p = sub.add_parser("demo", help="raise the founding errors from real sglang code and show the enrichment")
    p.set_defaults(run=demo)
    p = sub.add_parser("run", help="run a command with enrich active in it and every Python process it starts")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    p.set_defaults(run=lambda args: _run(args.cmd))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
