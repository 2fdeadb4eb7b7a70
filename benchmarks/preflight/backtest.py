"""Backtest: run preflight on launches reconstructed from public reports and compare.

    .venv/bin/python benchmarks/preflight/backtest.py [--json]

For each case: the predicted IDs (the right one anywhere, and first), the predicted numbers next
to the printed ones. Figures: share of failing launches predicted with the right ID, median
relative error of the KV and weight figures, false alarms on known-good launches.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from enrich.preflight.check import pick_gpu, preflight

HERE = Path(__file__).resolve().parent
MODELS = HERE.parents[1] / "tests" / "fixtures" / "models"
FIGURES = ("needed_gib", "available_gib", "estimated", "kv_tokens", "size", "numerator", "heads", "derived", "min_cap")


def model_dir(case: dict, scratch: Path) -> Path:
    if "model" in case:
        return MODELS / case["model"]
    folder = scratch / case["name"]
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(case["config"]))
    return folder


def run_case(case: dict, scratch: Path) -> dict:
    command = case["command"].format(model=model_dir(case, scratch)).split()
    report = preflight(command, gpu=pick_gpu(case.get("gpu"), None, None, measure=False),
                       engine_version_text=case.get("version"), env={}, check_host=False)
    errors = [f for f in report.outcome.findings if f.severity == "error"]
    found = [f.id for f in report.outcome.findings]
    row = {"name": case["name"], "expect": case["expect"], "found": found, "url": case["url"]}
    if case["expect"]:
        match = next((f for f in report.outcome.findings if f.id == case["expect"]), None)
        row["hit"] = match is not None
        row["first"] = bool(errors) and errors[0].id == case["expect"]
        row["compared"] = {}
        for name, printed in case.get("printed", {}).items():
            value = match.values.get(name) if match else None
            try:
                predicted = float(value) if value is not None else None
            except ValueError:
                predicted = None
            row["compared"][name] = {"printed": printed, "predicted": predicted,
                                     "relative_error": abs(predicted - printed) / abs(printed) if predicted is not None and printed else None}
    else:
        row["false_alarm"] = bool(errors)
    return row


def main(argv: list[str]) -> int:
    cases = tomllib.loads((HERE / "cases.toml").read_text())["case"]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        rows = [run_case(case, Path(scratch)) for case in cases]
    elapsed = time.perf_counter() - start
    failing = [r for r in rows if r["expect"]]
    good = [r for r in rows if not r["expect"]]
    kv_errors = [c["relative_error"] for r in failing for n, c in r["compared"].items()
                 if n in ("needed_gib", "available_gib", "estimated", "kv_tokens") and c["relative_error"] is not None]
    shape_errors = [c["relative_error"] for r in failing for n, c in r["compared"].items()
                    if n not in ("needed_gib", "available_gib", "estimated", "kv_tokens") and c["relative_error"] is not None]
    summary = {
        "failing_launches": len(failing),
        "predicted_with_right_id": sum(r["hit"] for r in failing),
        "right_id_first": sum(r["first"] for r in failing),
        "known_good": len(good),
        "false_alarms": sum(r["false_alarm"] for r in good),
        "kv_figures_compared": len(kv_errors),
        "kv_median_relative_error": round(statistics.median(kv_errors), 4) if kv_errors else None,
        "other_figures_compared": len(shape_errors),
        "other_median_relative_error": round(statistics.median(shape_errors), 4) if shape_errors else None,
        "seconds_per_case": round(elapsed / len(rows), 4),
    }
    if "--json" in argv:
        print(json.dumps({"summary": summary, "cases": rows}, indent=2))
        return 0
    for r in rows:
        if r["expect"]:
            mark = "first" if r["first"] else ("found" if r["hit"] else "MISS ")
            figures = ", ".join(f"{n} {c['printed']} vs {c['predicted']}" for n, c in r["compared"].items())
            print(f"{mark} {r['name']:36s} {r['expect']:34s} {figures}" + ("" if r["hit"] else f"  got {r['found']}"))
        else:
            print(f"{'ALARM' if r['false_alarm'] else 'quiet'} {r['name']:36s} {r['found'] or ''}")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
