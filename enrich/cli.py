"""The ``enrich`` command: ``explain ID|PATH``, ``catalog ...``, ``run -- CMD``, ``demo``."""

from __future__ import annotations

import argparse
import json
import signal
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
    if entry.example is not None:
        failing, fixed = entry.example
        lines += ["", "Failing", textwrap.indent(failing.strip(), "    "), "Fixed", textwrap.indent(fixed.strip(), "    ")]
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


def catalog_command(args: argparse.Namespace) -> int:
    catalog = get_catalog()
    entries = sorted(catalog.entries.values(), key=lambda e: e.id)
    args.arg = " ".join(args.args)
    if args.action == "list":
        for entry in entries:
            print(f"{entry.id:48s} {entry.component:18s} {entry.title}")
        return 0
    if args.action == "show":
        args.target = args.arg
        return explain(args)
    if args.action == "search":
        words = (args.arg or "").lower().split()
        for entry in entries:
            text = " ".join([entry.id, entry.title, entry.meaning, *entry.causes,
                             *(s.message for s in entry.samples)]).lower()
            if all(word in text for word in words):
                print(f"{entry.id:48s} {entry.title}")
        return 0
    if args.action == "docs":
        from enrich.catalog_tools import write_docs
        print(f"wrote {write_docs(catalog, Path(args.arg or 'docs/catalog'))} pages to {args.arg or 'docs/catalog'}")
        return 0
    if args.action == "import":
        from enrich.catalog_tools import import_record
        print(import_record(json.loads(Path(args.arg).read_text())), end="")
        return 0
    if args.action == "stats":
        from enrich.catalog_tools import stats
        figures = stats(catalog)
        if args.arg:
            from enrich.scan import scan_package
            sites = list(scan_package(args.arg))
            figures["generic_explainer"] = {
                "package": args.arg, "raise_and_assert_sites": len(sites),
                "with_a_guard_it_can_state": sum(1 for s in sites if s.guard),
                "bare_asserts": sum(1 for s in sites if s.kind == "assert" and not s.template)}
        print(json.dumps(figures, indent=2))
        return 0
    if args.action == "lint":
        from enrich.lint import lint
        problems = lint(catalog)
        for problem in problems:
            print(problem)
        print(f"{len(catalog)} entries, {len(problems)} problem{'s' * (len(problems) != 1)}")
        return 1 if problems else 0
    return scan_command(args.arg, catalog)


def scan_command(package: str, catalog) -> int:
    from enrich.drift import missing_targets
    from enrich.integration import discover
    from enrich.match import _site_matches
    from enrich.scan import scan_package

    sites = list(scan_package(package))
    known = {s.site for s in sites}
    raises = [s for s in sites if s.kind == "raise"]
    asserts = [s for s in sites if s.kind == "assert"]
    print(f"{package}: {len(raises)} raise sites ({sum(1 for s in raises if s.pattern)} with a message template, "
          f"{sum(1 for s in raises if s.guard)} under an if), {len(asserts)} asserts "
          f"({sum(1 for s in asserts if not s.template)} without a message)")
    gone = []
    for entry in catalog.entries.values():
        for site in entry.sites:
            if site.startswith(package + ".") and not any(_site_matches(site, k) for k in known):
                gone.append(f"{entry.id}: {site}")
    print(f"catalog entries pointing at sites this version no longer has: {len(gone)}")
    for line in gone:
        print(f"  {line}")
    for integration in discover():
        if integration.distribution == package or integration.name == package:
            missing = missing_targets(integration)
            print(f"integration targets missing: {len(missing)}" + "".join(f"\n  {m}" for m in missing))
    return 0


def demo(args: argparse.Namespace) -> int:
    from enrich.demo import main
    return main()


def _run(command: list[str]) -> int:
    from enrich.launcher import run
    return run(command[1:] if command[:1] == ["--"] else command)


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):   # `enrich catalog list | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["catalog", "verify"]:   # its own options: --release DIST==VER, --installed, --json
        from enrich.catalog.tools.verify import main as verify
        return verify(argv[2:])
    parser = argparse.ArgumentParser(prog="enrich", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("explain", help="explain a catalog entry (ID), or every error in a log file (PATH, - for stdin)")
    p.add_argument("target", metavar="ID|PATH|-")
    p.add_argument("--json", action="store_true", help="for a log: one JSON object per finding")
    p.set_defaults(run=explain)
    p = sub.add_parser("catalog", help="list, show, search or lint the catalog; scan an engine's source for drift")
    p.add_argument("action", choices=["list", "show", "search", "lint", "scan", "docs", "import", "stats", "verify"])
    p.add_argument("args", nargs="*", help="ID for show, words for search, PACKAGE for scan and stats, "
                                           "DIR for docs, FILE (a JSON error record) for import")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(run=catalog_command)
    p = sub.add_parser("demo", help="raise the founding errors from real sglang code and show the enrichment")
    p.set_defaults(run=demo)
    p = sub.add_parser("run", help="run a command with enrich active in it and every Python process it starts")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    p.set_defaults(run=lambda args: _run(args.cmd))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
