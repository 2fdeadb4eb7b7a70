"""``enrich catalog ACTION``: list, show, search, lint, scan, docs, import, stats.

Each action registers itself with ``@action``; adding one is a decorated function."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from enrich.catalog import Entry, get_catalog
from enrich.cli.output import CliError, add_color_option, bold, print_json, use_color
from enrich.render.page import as_json, page_of, terminal


@dataclass
class Action:
    run: Callable[[argparse.Namespace], int]
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    json: bool            # whether --json applies


ACTIONS: dict[str, Action] = {}


def action(name: str, help: str, arguments: Callable[[argparse.ArgumentParser], None] = lambda p: None,
           json: bool = False):
    def add(run: Callable[[argparse.Namespace], int]):
        ACTIONS[name] = Action(run, help, arguments, json)
        return run
    return add


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("catalog", help="list, show, search or lint the catalog; scan an engine's source for drift")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, entry in ACTIONS.items():
        q = actions.add_parser(name, help=entry.help, description=entry.help)
        entry.arguments(q)
        q.add_argument("--json", action="store_true",
                       help="print JSON" if entry.json else argparse.SUPPRESS)
        add_color_option(q)
        q.set_defaults(run=_run_action)


def _run_action(args: argparse.Namespace) -> int:
    chosen = ACTIONS[args.action]
    if args.json and not chosen.json:
        with_json = ", ".join(name for name, a in ACTIONS.items() if a.json)
        raise CliError(f"--json does not apply to catalog {args.action} (it does to: {with_json})")
    return chosen.run(args)


def _sorted_entries() -> list[Entry]:
    return sorted(get_catalog().entries.values(), key=lambda e: e.id)


def lookup_entry(text: str, what: str = "catalog entry") -> Entry:
    """An entry by ID, written bare or as printed in a note (``[sglang/attn-tp-kv-heads]``)."""
    wanted = text.strip().strip("[]").strip()
    entries = get_catalog().entries
    if wanted in entries:
        return entries[wanted]
    near = [i for i in sorted(entries) if wanted and wanted.lower() in i]
    near += [i for i in difflib.get_close_matches(wanted, list(entries), n=3, cutoff=0.6) if i not in near]
    raise CliError(f"no such {what}: {text!r}" + (f"; did you mean: {', '.join(near[:5])}" if near else ""))


def show_entry(entry: Entry, args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        print_json(entry_json(entry))
    else:
        print(entry_page(entry, use_color(args.color, sys.stdout)))
    return 0


def entry_page(entry: Entry, color: bool = False) -> str:
    """The terminal page of one entry, its first line bold when coloured."""
    title, rest = terminal(page_of(entry)).split("\n", 1)
    return bold(title, color) + "\n" + rest


def entry_json(entry: Entry) -> dict:
    return {**as_json(page_of(entry)), "docs": f"enrich explain {entry.id}"}


@action("list", "every entry: ID, component, resolution, title", json=True)
def list_entries(args: argparse.Namespace) -> int:
    return _print_entries(_sorted_entries(), args, lambda e: f"{e.id:48s} {e.component:18s} {e.resolution:13s} {e.title}")


@action("show", "one entry's page (same as enrich explain ID)",
        lambda p: p.add_argument("id", metavar="ID"), json=True)
def show(args: argparse.Namespace) -> int:
    return show_entry(lookup_entry(args.id), args)


@action("search", "entries whose text has all the WORDS",
        lambda p: p.add_argument("words", nargs="+", metavar="WORD"), json=True)
def search(args: argparse.Namespace) -> int:
    words = " ".join(args.words).lower().split()
    hits = [e for e in _sorted_entries()
            if all(w in " ".join([e.id, e.title, e.meaning, *e.causes, *(s.message for s in e.samples)]).lower()
                   for w in words)]
    return _print_entries(hits, args, lambda e: f"{e.id:48s} {e.title}")


def _print_entries(entries: list[Entry], args: argparse.Namespace, line: Callable[[Entry], str]) -> int:
    if args.json:
        print_json([entry_json(e) for e in entries])
    else:
        print("\n".join(line(e) for e in entries)) if entries else None
    return 0


@action("lint", "schema, backtracking, wordless patterns, each sample matches its own entry only (exit 1 on problems)")
def lint_catalog(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.lint import lint
    catalog = get_catalog()
    problems = lint(catalog)
    for problem in problems:
        print(problem)
    print(f"{len(catalog)} entries, {len(problems)} problem{'s' * (len(problems) != 1)}")
    return 1 if problems else 0


def _package_argument(required: bool):
    def add(p: argparse.ArgumentParser) -> None:
        p.add_argument("package", metavar="PACKAGE", nargs=None if required else "?",
                       help="an installed package, e.g. sglang")
    return add


def _scan(package: str):
    from enrich.raise_sites import package_root, scan_package
    try:
        return list(scan_package(package, package_root(package)))
    except LookupError as error:
        raise CliError(str(error)) from None


@action("scan", "raise/assert sites of an installed engine; catalog entries and targets that drifted",
        _package_argument(required=True))
def scan(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.drift import missing_targets
    from enrich.activation.integration import discover
    from enrich.match import _site_matches

    package, sites = args.package, _scan(args.package)
    known = {s.site for s in sites}
    raises = [s for s in sites if s.kind == "raise"]
    asserts = [s for s in sites if s.kind == "assert"]
    print(f"{package}: {len(raises)} raise sites ({sum(1 for s in raises if s.pattern)} with a message template, "
          f"{sum(1 for s in raises if s.guard)} under an if), {len(asserts)} asserts "
          f"({sum(1 for s in asserts if not s.template)} without a message)")
    gone = [f"{entry.id}: {site}" for entry in get_catalog().entries.values() for site in entry.sites
            if site.startswith(package + ".") and not any(_site_matches(site, k) for k in known)]
    print(f"catalog entries pointing at sites this version no longer has: {len(gone)}")
    for line in gone:
        print(f"  {line}")
    for integration in discover():
        if integration.distribution == package or integration.name == package:
            missing = missing_targets(integration)
            print(f"integration targets missing: {len(missing)}" + "".join(f"\n  {m}" for m in missing))
    return 0


@action("docs", "write one reference page per entry",
        lambda p: p.add_argument("directory", metavar="DIR", nargs="?", default="docs/catalog"))
def docs(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.docs import write_docs
    print(f"wrote {write_docs(get_catalog(), Path(args.directory))} pages to {args.directory}")
    return 0


@action("import", "a draft entry (TOML) from a JSON error record (schemaVersion 2)",
        lambda p: p.add_argument("record", metavar="FILE"))
def import_entry(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.docs import import_record
    try:
        data = json.loads(Path(args.record).read_text(encoding="utf-8"))
        draft = import_record(data if isinstance(data, dict) else {})
    except OSError as error:
        raise CliError(f"cannot read {args.record}: {error.strerror or error}") from None
    except (ValueError, AttributeError, TypeError) as error:   # JSONDecodeError is a ValueError
        raise CliError(f"{args.record} is not a JSON error record: {error}") from None
    print(draft, end="")
    return 0


@action("stats", "figures; with a package, how many raise sites the generic explainer covers",
        _package_argument(required=False), json=True)
def stats(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.docs import stats as catalog_stats
    figures = catalog_stats(get_catalog())
    if args.package:
        sites = _scan(args.package)
        figures["generic_explainer"] = {
            "package": args.package, "raise_and_assert_sites": len(sites),
            "with_a_guard_it_can_state": sum(1 for s in sites if s.guard),
            "bare_asserts": sum(1 for s in sites if s.kind == "assert" and not s.template)}
    print_json(figures)
    return 0


def _release(text: str) -> tuple[str, str]:
    from enrich.catalog.tools.verify import parse_release   # only when --release is given
    return parse_release(text)


def _verify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--release", action="append", type=_release, default=[], metavar="DIST==VER",
                   help="also check this release (fetched into the release cache when needed)")
    p.add_argument("--installed", action="store_true", help="check installed releases (and --release) only")
    p.add_argument("--entry", action="append", default=[], metavar="ID", help="check only these entries")


@action("verify", "prove each entry can fire in the releases it names: message pieces in their source, "
        "raise sites, the flags and environment variables its fixes name", _verify_arguments, json=True)
def verify(args: argparse.Namespace) -> int:
    from enrich.catalog.tools.verify import verify as verify_catalog   # reads release sources: slow, on demand

    report = verify_catalog(get_catalog(), args.release, args.installed, entries=args.entry)
    if args.json:
        print_json(report.as_json())
    else:
        for why in report.unavailable.values():
            print(f"unavailable: {why}")
        for item in report.unchecked:
            print(f"unchecked: {item}")
        for problem in report.problems:
            print(problem)
        print(f"{len({e for e, _ in report.checked})} entries, {len(report.checked)} entry-release pairs over "
              f"{len({r for _, r in report.checked})} releases, {len(report.problems)} "
              f"problem{'s' * (len(report.problems) != 1)}, {len(report.unchecked)} left unchecked")
    return 1 if report.problems or report.unavailable else 0
