"""Backtest: run preflight on launches reconstructed from public reports and compare.

    .venv/bin/python benchmarks/preflight/backtest.py [--json]

For each case: the predicted IDs (the right one anywhere, and first), the predicted numbers next
to the printed ones. Figures: share of failing launches predicted with the right ID, median
relative error of the KV and weight figures (the cases whose prints calibrated the activation model,
marked `tuned`, apart from the held-out rest), false alarms on known-good launches.
A case with `occupy_port` runs with a real listening socket on that port and the host checks on.
"""

from __future__ import annotations

import contextlib
import json
import socket
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
KV_FIGURES = ("needed_gib", "available_gib", "estimated", "kv_tokens")
WEIGHT_FIGURES = ("weights_per_gpu_gib",)


def model_dir(case: dict, scratch: Path) -> Path:
    if "model" in case:
        return MODELS / case["model"]
    folder = scratch / case["name"]
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(case["config"]))
    return folder


@contextlib.contextmanager
def listening(port: int | None):
    """A real server socket on the port for the case's duration (the launch's port is taken)."""
    if port is None:
        yield
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("0.0.0.0", port))
        server.listen()
        yield


def run_case(case: dict, scratch: Path) -> dict:
    command = case["command"].format(model=model_dir(case, scratch)).split()
    with listening(case.get("occupy_port")):
        report = preflight(command, gpu=pick_gpu(case.get("gpu"), None, None, measure=False),
                           engine_version_text=case.get("version"), env={},
                           check_host="occupy_port" in case, check_port="occupy_port" in case)
    findings = report.outcome.findings
    errors = [f for f in findings if f.severity == "error"]
    row = {"name": case["name"], "expect": case["expect"], "found": [f.id for f in findings], "url": case["url"],
           "tuned": bool(case.get("tuned"))}
    if case["expect"]:
        match = next((f for f in findings if f.id == case["expect"]), None)
        row["hit"] = match is not None
        row["first"] = bool(findings) and findings[0].id == case["expect"]    # errors rank before warnings
        row["as_error"] = bool(errors) and errors[0].id == case["expect"]
        row["compared"] = {}
        for name, printed in case.get("printed", {}).items():
            value = match.values.get(name) if match else None
            if name in WEIGHT_FIGURES:
                value = report.plan.get(name)
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
    def errors_of(names, tuned=None):
        return [c["relative_error"] for r in failing if tuned is None or r["tuned"] == tuned
                for n, c in r["compared"].items() if (n in names) and c["relative_error"] is not None]

    def median(values):
        return {"n": len(values), "median_relative_error": round(statistics.median(values), 4) if values else None}

    other = [n for r in failing for n in r["compared"] if n not in KV_FIGURES + WEIGHT_FIGURES]
    summary = {
        "failing_launches": len(failing),
        "predicted_with_right_id": sum(r["hit"] for r in failing),
        "right_id_first": sum(r["first"] for r in failing),
        "right_id_first_as_error": sum(r["as_error"] for r in failing),
        "known_good": len(good),
        "false_alarms": sum(r["false_alarm"] for r in good),
        "kv_figures_tuned": median(errors_of(KV_FIGURES, True)),
        "kv_figures_held_out": median(errors_of(KV_FIGURES, False)),
        "weight_figures": median(errors_of(WEIGHT_FIGURES)),
        "shape_figures": median(errors_of(set(other))),
        "seconds_per_case": round(elapsed / len(rows), 4),
    }
    if "--json" in argv:
        print(json.dumps({"summary": summary, "cases": rows}, indent=2))
        return 0
    for r in rows:
        if r["expect"]:
            mark = "first" if r["first"] else ("found" if r["hit"] else "MISS ")
            mark += "*" if r["tuned"] else " "
            figures = ", ".join(f"{n} {c['printed']} vs {c['predicted']}" for n, c in r["compared"].items())
            print(f"{mark} {r['name']:36s} {r['expect']:34s} {figures}" + ("" if r["hit"] else f"  got {r['found']}"))
        else:
            print(f"{'ALARM' if r['false_alarm'] else 'quiet'}  {r['name']:36s} {r['found'] or ''}")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
