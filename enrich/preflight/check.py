"""One preflight: the launch command, the model, the GPU and the catalog's rules, to a report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from enrich.preflight import flags, gpu as gpus
from enrich.preflight.facts import Facts, engine_version
from enrich.preflight.model import read
from enrich.preflight.rules import Outcome, evaluate, predicted_entries


@dataclass
class Report:
    engine: str
    engine_version: str | None
    version_source: str
    model: str
    gpu: dict[str, Any]
    outcome: Outcome
    plan: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return 1 if self.outcome.failing else 0

    def as_json(self) -> dict[str, Any]:
        return {"schema": 1, "engine": self.engine, "engine_version": self.engine_version,
                "engine_version_source": self.version_source, "model": self.model, "gpu": self.gpu,
                "findings": [f.as_json() for f in self.outcome.findings],
                "not_checked": self.outcome.unchecked, "plan": self.plan}


def pick_gpu(name: str | None, memory: float | None, count: int | None, measure: bool = True) -> gpus.Gpu | None:
    if name:
        return gpus.from_name(name, count)
    if memory:
        return gpus.from_memory(memory, count)
    found = gpus.from_nvml() if measure else None
    if found is not None and count:
        found = gpus.Gpu(found.name, found.memory_gib, found.capability, count, found.free_gib, found.source)
    return found


def preflight(command: list[str], *, gpu: gpus.Gpu | None = None, engine_version_text: str | None = None,
              env: dict[str, str] | None = None, check_host: bool = True, check_port: bool = True,
              entries=None) -> Report:
    """Raises flags.LaunchError, model.ModelError (bad input); everything else is a finding or a note."""
    version, source = engine_version(flags.engine_of(command), engine_version_text)
    launch = flags.parse(command, version=version)
    if not launch.model:
        raise flags.LaunchError("the command names no model (vllm serve MODEL, --model or --model-path)")
    model = read(launch.model)
    facts = Facts(launch, model, gpu, version, source, dict(os.environ if env is None else env), check_host,
                  check_port)
    if entries is None:
        from enrich.catalog import get_catalog
        entries = predicted_entries(get_catalog().entries.values())
    outcome = evaluate(entries, facts)
    spaces = facts.spaces()
    plan = {k: v for k, v in spaces["plan"].items() if not k.endswith("_bytes") or k in (
        "kv_bytes_per_token_per_gpu", "weights_per_gpu_bytes", "kv_needed_bytes")}
    plan = {k: v for k, v in plan.items() if isinstance(v, (int, float, str, list))}
    return Report(launch.engine, str(version) if version else None, source, str(model.path),
                  {k: v for k, v in spaces["gpu"].items() if k in ("name", "memory_gib", "capability", "count", "free_gib")},
                  outcome, plan)
