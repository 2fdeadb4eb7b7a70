"""Fit the activation model of enrich/preflight/plan.py to vLLM's own profiling prints.

    .venv/bin/python benchmarks/preflight/calibrate.py

The prints (benchmarks/preflight/profiles.toml) give the profiling run's activation peak for a known
shape, GPU and batch. The model is max(per_token x MLP bytes of the batch, sampler_copies x fp32
logits of max_num_seqs sequences). Profilers before vLLM 0.6.5 did not see the sampler's peak, so
they give per_token alone; later prints whose peak is well above the MLP term give sampler_copies.
The spread is the range of printed / fitted over each group. Prints the fit next to the constants
in plan.py.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from packaging.version import Version

from enrich.preflight import plan
from enrich.preflight.model import read
from enrich.preflight.shape import shape

HERE = Path(__file__).resolve().parent
MODELS = HERE.parents[1] / "tests" / "fixtures" / "models"
GIB = 2**30
NEW_PROFILER = Version("0.6.5")


def profiles() -> list[dict]:
    rows = tomllib.loads((HERE / "profiles.toml").read_text())["profile"]
    with tempfile.TemporaryDirectory() as scratch:
        for i, row in enumerate(rows):
            folder = MODELS / row["model"] if "model" in row else Path(scratch) / str(i)
            if "config" in row:
                folder.mkdir()
                (folder / "config.json").write_text(json.dumps(row["config"]))
            m = shape(read(str(folder)))
            row["mlp_gib"] = plan.mlp_bytes(m, row["tokens"], row["tp"]) / GIB
            row["sampler_gib"] = row["seqs"] * m["vocab"] * 4 / GIB
    return rows


def fit(rows: list[dict]) -> dict[str, dict]:
    old = [r for r in rows if Version(r["version"]) < NEW_PROFILER]
    new = [r for r in rows if Version(r["version"]) >= NEW_PROFILER]
    per_token = statistics.median(r["activation_gib"] / r["mlp_gib"] for r in old)
    sampled = [r for r in new if r["activation_gib"] > 1.2 * per_token * r["mlp_gib"]]
    copies = statistics.median(r["activation_gib"] / r["sampler_gib"] for r in sampled)
    out = {}
    for name, group, model in (("v0-old-profiler", old, (per_token, 0.0)), ("v0", new, (per_token, copies))):
        ratios = [r["activation_gib"] / max(model[0] * r["mlp_gib"], model[1] * r["sampler_gib"]) for r in group]
        out[name] = {"per_token": round(model[0], 3), "sampler_copies": round(model[1], 2),
                     "spread": [round(min(ratios), 3), round(max(ratios), 3)], "prints": len(group)}
    non_torch = sorted(r["non_torch_gib"] for r in rows if r["tp"] == 1)
    out["non_torch_one_gpu"] = {"low": non_torch[0], "median": statistics.median(non_torch), "high": non_torch[-1]}
    return out


def main() -> int:
    fitted = fit(profiles())
    current = {name: {"per_token": m.per_token, "sampler_copies": m.sampler_copies, "spread": list(m.spread)}
               for name, m in plan.ACTIVATION.items()}
    print(json.dumps({"fitted": fitted, "plan.py": current, "plan.py non-torch": plan.NON_TORCH_GIB}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
