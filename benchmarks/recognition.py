"""How well the log reader recognises real errors: the labelled corpus of pasted logs.

    python benchmarks/recognition.py                  # tables per split and family
    python benchmarks/recognition.py --family vllm --show-misses   # the dev split's misses
    python benchmarks/recognition.py --json
    python benchmarks/recognition.py --since REV      # only rows added after git revision REV

Every row of tests/fixtures/corpus/*/labels.json names a pasted log and the catalog IDs it should
yield as root causes ([] for a negative). A row counts as
  identified      every expected ID is among the root-cause findings
  not identified  an identifiable positive with an expected ID missing
  wrong           a positive with a root-cause ID that is not expected
  claimed         a negative with any root-cause ID
The real logs of tests/fixtures/logs (SOURCES.json) are scored apart: their labels are the
exception and message of each finding, compared as written. So are the failing processes recorded
on a GPU (tests/fixtures/processes): the entry each should give, and one finding per root cause.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
LOGS = ROOT / "tests" / "fixtures" / "logs"
PROCESSES = ROOT / "tests" / "fixtures" / "processes"
SPLITS = ("dev", "test", "all")


def read_log(text: str) -> list:
    """The log reader under test; the one place that names its module."""
    from enrich.logs import findings
    return findings(io.StringIO(text), all=True)   # every finding, each with its root-cause flag


@dataclass
class Outcome:
    row: dict
    got: list[str]                  # catalog IDs of the root-cause findings, in order
    others: list[str] = field(default_factory=list)   # IDs found but not as root causes
    read: list[str] = field(default_factory=list)     # every finding as "exception: message", for misses

    @property
    def positive(self) -> bool:
        return bool(self.row["expect"])

    @property
    def identified(self) -> bool:
        return self.positive and set(self.row["expect"]) <= set(self.got)

    @property
    def missed(self) -> bool:
        return self.positive and self.row["identifiable"] and not self.identified

    @property
    def wrong(self) -> list[str]:
        return [i for i in self.got if i not in self.row["expect"]]

    @property
    def claimed(self) -> bool:
        return not self.positive and bool(self.got)

    def kind(self) -> str:
        if self.claimed:
            return "claimed"
        if self.missed:
            return "missed" + (" + wrong" if self.wrong else "")
        if self.positive and self.wrong:
            return "wrong"
        return ""


def score_row(row: dict) -> Outcome:
    text = (CORPUS / row["family"] / row["file"]).read_text(encoding="utf-8")
    found = read_log(text)
    root = [f.id for f in found if f.id and f.root_cause]
    other = [f.id for f in found if f.id and not f.root_cause]
    read = [f"{f.exception or '?'}: {f.message[:90]!r}" + ("" if f.root_cause else " (not root)") for f in found]
    return Outcome(row, list(dict.fromkeys(root)), list(dict.fromkeys(other)), read)


def load_rows(family: str | None) -> list[dict]:
    rows = []
    for labels in sorted(CORPUS.glob("*/labels.json")):
        if family and labels.parent.name != family:
            continue
        for row in json.loads(labels.read_text(encoding="utf-8")):
            rows.append({**row, "family": labels.parent.name})
    return rows


def added_since(rows: list[dict], rev: str) -> list[dict]:
    """The rows whose labels were not yet in revision `rev`: a new batch's first score."""
    def known(family: str) -> set[str]:
        path = (CORPUS / family / "labels.json").relative_to(ROOT).as_posix()
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True)
        return {r["file"] for r in json.loads(shown.stdout)} if shown.returncode == 0 else set()
    before = {family: known(family) for family in {r["family"] for r in rows}}
    return [r for r in rows if r["file"] not in before[r["family"]]]


def tally(outcomes: list[Outcome]) -> dict:
    pos = [o for o in outcomes if o.positive]
    ident = [o for o in pos if o.row["identifiable"]]
    neg = [o for o in outcomes if not o.positive]
    counts = {
        "files": len(outcomes), "positives": len(pos), "identifiable": len(ident),
        "identified": sum(o.identified for o in pos),
        "identified_of_identifiable": sum(o.identified for o in ident),
        "not_identified": sum(o.missed for o in pos),
        "wrong": sum(bool(o.wrong) for o in pos),
        "negatives": len(neg), "negatives_claimed": sum(o.claimed for o in neg),
    }
    counts["share_identified"] = _share(counts["identified_of_identifiable"], len(ident))
    counts["share_wrong"] = _share(counts["wrong"], len(pos))
    counts["share_claimed"] = _share(counts["negatives_claimed"], len(neg))
    return counts


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def summary(outcomes: list[Outcome]) -> dict:
    families = sorted({o.row["family"] for o in outcomes})
    out = {}
    for split in SPLITS:
        chosen = [o for o in outcomes if split == "all" or o.row["split"] == split]
        out[split] = {fam: tally([o for o in chosen if o.row["family"] == fam]) for fam in families}
        out[split]["total"] = tally(chosen)
    return out


COLUMNS = [("files", "files"), ("positives", "pos"), ("identifiable", "ident."),
           ("identified_of_identifiable", "found"), ("not_identified", "missed"), ("wrong", "wrong"),
           ("negatives", "neg"), ("negatives_claimed", "claimed"), ("share_identified", "found%"),
           ("share_wrong", "wrong%"), ("share_claimed", "claimed%")]


def print_tables(result: dict) -> None:
    for split in SPLITS:
        print(f"\n[{split}]")
        print(f"{'family':<12}" + "".join(f"{title:>9}" for _, title in COLUMNS))
        for fam, counts in result[split].items():
            cells = "".join(f"{_cell(counts[key]):>9}" for key, _ in COLUMNS)
            print(f"{fam:<12}{cells}")


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.0f}%" if isinstance(value, float) else str(value)


def print_misses(outcomes: list[Outcome], split: str) -> None:
    bad = [o for o in outcomes if o.kind() and split in ("all", o.row["split"])]
    print(f"\n{len(bad)} {split} rows with a miss, a wrong ID or a claimed negative:")
    for o in bad:
        r = o.row
        print(f"  {r['family']}/{r['file']} [{r['split']}] {o.kind()}: expected {r['expect'] or '[]'}, "
              f"got {o.got or '[]'}" + (f" (not root: {o.others})" if o.others else ""))
        print(f"      {r['url']}  {r['note']}")
        for line in o.read or ["(no finding)"]:
            print(f"      read: {line}")


# --- the real logs of tests/fixtures/logs ---------------------------------------------------------

def score_sources() -> dict:
    """Each expected finding is looked for among the reader's, by the rules of
    tests/logs/test_real_logs.py: the exception as labelled (any, where the label has none) and
    the message's first line up to the numbers that differ per rank; then its root-cause flag."""
    from enrich.logs.findings import NUMBER
    sources = json.loads((LOGS / "SOURCES.json").read_text(encoding="utf-8"))
    per_engine: dict[str, Counter] = {}
    misses = []
    for entry in sources:
        found = read_log((LOGS / entry["file"]).read_text(encoding="utf-8"))
        tally_ = per_engine.setdefault(entry["engine"], Counter())
        claimed = set()
        for want in entry["findings"]:
            tally_["expected"] += 1
            same = [i for i, f in enumerate(found) if _same(want, f, NUMBER)]
            claimed.update(same)
            if any(found[i].root_cause == want["root_cause"] for i in same):
                tally_["matched"] += 1
            elif same:
                tally_["root_cause_differs"] += 1
                misses.append((entry["file"], "root cause flag differs", want))
            else:
                misses.append((entry["file"], "not found", want))
        tally_["extra"] += sum(1 for i, f in enumerate(found) if i not in claimed and f.root_cause)
    total = sum(per_engine.values(), Counter())
    return {"engines": {k: dict(v) for k, v in sorted(per_engine.items())}, "total": dict(total),
            "misses": [{"file": f, "why": why, "expected": w} for f, why, w in misses]}


def _same(want: dict, found, number) -> bool:
    """A cut traceback (labelled partial) may be reported under the log line that led it; a label
    with no message takes any."""
    if want["exception"] and not want["partial"] and (found.exception or None) != want["exception"]:
        return False
    first = lambda text: number.sub("#", text.strip().splitlines()[0].strip()) if text.strip() else ""
    expected = first(want["message"])
    return (not expected or expected == first(found.message)
            or expected in number.sub("#", found.message))


def print_sources(result: dict, show_misses: bool) -> None:
    print("\n[tests/fixtures/logs: expected findings matched by exception, message and root-cause flag;"
          " extra: root causes no label expects]")
    print(f"{'engine':<12}{'expected':>10}{'matched':>10}{'flag':>10}{'extra':>10}")
    for engine, c in list(result["engines"].items()) + [("total", result["total"])]:
        print(f"{engine:<12}{c.get('expected', 0):>10}{c.get('matched', 0):>10}"
              f"{c.get('root_cause_differs', 0):>10}{c.get('extra', 0):>10}")
    if show_misses:
        for m in result["misses"]:
            print(f"  {m['file']}: {m['why']}: {m['expected']['exception']}: {m['expected']['message'][:100]}")


# --- real failing processes recorded on a GPU (tests/fixtures/processes) ---------------------------

def score_processes() -> dict:
    """Each recording's root-cause IDs against the entry written down before it was recorded,
    and how many root findings it gives (one per expected entry is right)."""
    labels = json.loads((PROCESSES / "labels.json").read_text(encoding="utf-8"))
    rows = []
    for log in labels["logs"]:
        found = [f for f in read_log((PROCESSES / log["file"]).read_text(encoding="utf-8")) if f.root_cause]
        rows.append({"file": log["file"], "expect": log["expect"], "got": sorted({f.id for f in found if f.id}),
                     "roots": len(found)})
    right = sum(sorted(r["expect"]) == r["got"] for r in rows)
    single = sum(r["roots"] == len(r["expect"]) for r in rows)
    others = sorted({log["gpu"] for log in labels["logs"] if "gpu" in log})    # a recording's own card
    return {"machine": labels["machine"], "other_gpus": others, "recordings": len(rows), "right": right,
            "one_finding_per_root": single, "rows": rows}


def print_processes(result: dict, show_misses: bool) -> None:
    m = result["machine"]
    also = "".join(f", some on an {gpu}" for gpu in result["other_gpus"])
    print(f"\n[tests/fixtures/processes: real failing processes on an {m['gpu']}{also} (torch {m['torch']}, "
          f"triton {m['triton']}, NCCL {m['nccl']})]")
    print(f"recordings {result['recordings']}, root entry right {result['right']}, "
          f"one finding per root {result['one_finding_per_root']}")
    if show_misses:
        for r in result["rows"]:
            if sorted(r["expect"]) != r["got"] or r["roots"] != len(r["expect"]):
                print(f"  {r['file']}: expected {r['expect']}, got {r['got']} in {r['roots']} root findings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", help="score one family folder only")
    parser.add_argument("--show-misses", nargs="?", const="dev", choices=SPLITS, metavar="SPLIT",
                        help="list each row with a miss, its expected and found IDs: the dev split's unless "
                             "named (the test split is scored, not read for tuning)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--since", metavar="REV", help="score only the rows added after this git revision")
    args = parser.parse_args(argv)

    rows = load_rows(args.family)
    if args.since:
        rows = added_since(rows, args.since)
    if not rows:
        print(f"no labelled rows under {CORPUS}" + (f" for family {args.family}" if args.family else "")
              + (f" added since {args.since}" if args.since else ""), file=sys.stderr)
        return 2
    outcomes = [score_row(row) for row in rows]
    result = summary(outcomes)
    whole = not (args.family or args.since)
    sources = score_sources() if whole else None
    processes = score_processes() if whole else None
    if args.json:
        report = {"corpus": result, "fixture_logs": sources, "processes": processes}
        if args.show_misses:
            report["rows"] = [{"family": o.row["family"], "file": o.row["file"], "split": o.row["split"],
                               "expect": o.row["expect"], "got": o.got, "not_root": o.others,
                               "kind": o.kind()} for o in outcomes if args.show_misses in ("all", o.row["split"])]
        print(json.dumps(report, indent=1))
        return 0
    print_tables(result)
    if args.show_misses:
        print_misses(outcomes, args.show_misses)
    if sources is not None:
        print_sources(sources, args.show_misses)
        print_processes(processes, args.show_misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
