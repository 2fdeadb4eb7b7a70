"""``enrich catalog lint``: what makes a catalog entry unsafe or wrong, beyond its schema."""

from __future__ import annotations

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

from pathlib import Path

from enrich.catalog import Catalog
from enrich.catalog.conditions import never_holds
from enrich.catalog.flags import problems as flag_problems
from enrich.catalog.regex import alternative_words, top_alternatives
from enrich.catalog.tools.samples import check_samples

UNBOUNDED = sre_parse.MAXREPEAT


def nested_repeat(pattern: str) -> bool:
    """A repeat with an unbounded repeat inside it, e.g. ``(\\w+\\s?)+``: the shape of
    catastrophic backtracking."""
    def walk(items, inside: bool) -> bool:
        for op, arg in items:
            if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT):
                low, high, sub = arg
                if inside and high == UNBOUNDED:
                    return True
                if walk(sub, inside or high == UNBOUNDED or high > 1):
                    return True
            elif op is sre_parse.SUBPATTERN:
                if walk(arg[-1], inside):
                    return True
            elif op is sre_parse.BRANCH:
                if any(walk(branch, inside) for branch in arg[1]):
                    return True
        return False
    try:
        return walk(sre_parse.parse(pattern), False)
    except Exception:  # noqa: BLE001
        return False


PAGES = Path("docs/catalog")    # the reference pages, when run from a checkout
OPEN_LEAD = 8    # fixed characters a message must start with to be its own, before any open text
OWN_WORDS = 11   # ...and fewer characters of whole words of its own further on ("Cuda failure" has 11)


def leading_fixed(pattern: str) -> list[int]:
    """How many fixed characters every match starts with, per alternative, before the first open repeat
    (``\\w+``, ``.*``): a message that starts with someone else's text (a class name, a number)
    is shared with other code."""
    def blank(sub) -> bool:
        return all(op is sre_parse.IN and arg == [(sre_parse.CATEGORY, sre_parse.CATEGORY_SPACE)] for op, arg in sub)

    def walk(items) -> tuple[int, bool]:          # (fixed characters, stopped at open text)
        count = 0
        for op, arg in items:
            if op is sre_parse.LITERAL:
                count += 1
            elif op in (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT):
                continue
            elif op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT):
                if blank(arg[2]):
                    continue
                if arg[1] > 1:
                    return count, True
                if arg[0] >= 1:
                    n, stopped = walk(arg[2])
                    count += n
                    if stopped:
                        return count, True
            elif op is sre_parse.SUBPATTERN:
                n, stopped = walk(arg[-1])
                count += n
                if stopped:
                    return count, True
            elif op is sre_parse.BRANCH:
                results = [walk(branch) for branch in arg[1]]
                count += min(r[0] for r in results)
                if any(r[1] for r in results):
                    return count, True
            else:
                return count, True
        return count, False
    try:
        items = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001
        return [0]
    branches = top_alternatives(pattern)      # each alternative of a top alternation is its own message
    return [walk(branch)[0] for branch in branches] if branches is not None else [walk(items)[0]]


def lint(catalog: Catalog, pages: Path | None = PAGES) -> list[str]:
    """Problems of the catalog; ``pages`` is the folder of published reference pages, whose IDs
    must all still be there (an entry is retired, never deleted, so its ID is never reused)."""
    problems = [str(p) for p in catalog.problems]
    if pages is not None and pages.is_dir():
        gone = sorted(p.stem.replace("--", "/") for p in pages.glob("*--*.md")
                      if p.stem.replace("--", "/") not in catalog.entries)
        problems += [f"{pages}: {entry_id} was published and is gone: keep it with `retired = \"<why>\"` "
                     "so the ID is never reused" for entry_id in gone]
    for entry in catalog.entries.values():
        where = f"{entry.file}: {entry.id}"
        if entry.retired is not None:
            continue     # kept for its ID and page; never matched
        if entry.sites and entry.condition is None:
            problems.append(f"{where}: names a raise site but no condition (the check that raises there)")
        if entry.condition is not None and never_holds(entry.condition):
            problems.append(f"{where}: its condition `{entry.condition}` can never hold: the check cannot fail "
                            "(retire the entry)")
        if (entry.message is not None and not entry.require_site and not entry.not_sites
                and any(lead < OPEN_LEAD and sum(map(len, words)) < OWN_WORDS
                        for lead, words in zip(leading_fixed(entry.message.pattern), alternative_words(entry.message)))):
            problems.append(f"{where}: its message starts with open text that other code raises too: "
                            "set require_site, or name the sites it must not claim (not_sites)")
        if entry.message is not None and nested_repeat(entry.message.pattern):
            problems.append(f"{where}: message pattern has a nested unbounded repeat (catastrophic backtracking)")
        if entry.source is not None and nested_repeat(entry.source.pattern):
            problems.append(f"{where}: source pattern has a nested unbounded repeat (catastrophic backtracking)")
        if entry.message is not None and not all(alternative_words(entry.message)) and not entry.sites:
            problems.append(f"{where}: message pattern requires no word of its own and has no raise site: "
                            "it would match unrelated errors")
        problems.extend(f"{where}: {problem}" for problem in flag_problems(entry))
    problems.extend(check_samples(catalog))
    return problems
