"""``enrich catalog lint``: what makes a catalog entry unsafe or wrong, beyond its schema."""

from __future__ import annotations

try:
    from re import _parser as sre_parse  # 3.11+
except ImportError:  # pragma: no cover - 3.10
    import sre_parse  # type: ignore[no-redef]

from enrich.catalog import Catalog
from enrich.catalog.flags import problems as flag_problems
from enrich.catalog.index import alternative_words
from enrich.samples import check_samples

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


def lint(catalog: Catalog) -> list[str]:
    problems = [str(p) for p in catalog.problems]
    for entry in catalog.entries.values():
        where = f"{entry.file}: {entry.id}"
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
