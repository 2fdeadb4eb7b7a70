"""How a preflight report reads in a terminal."""

from __future__ import annotations

from enrich.preflight.check import Report

PLAN_LINES = (
    ("weights_per_gpu_gib", "weights per GPU", "{} GiB"),
    ("weights_source", "weight size from", "{}"),
    ("kv_bytes_per_token_per_gpu", "KV cache per token per GPU", "{} B"),
    ("max_model_len", "max model length", "{} tokens"),
    ("kv_needed_gib", "KV cache for one full-length request", "{} GiB"),
    ("budget_gib", "engine's memory budget per GPU", "{} GiB"),
    ("activation_band_gib", "activation peak (band)", "{0[0]}-{0[1]} GiB"),
    ("kv_available_band_gib", "left for the KV cache (band)", "{0[0]}-{0[1]} GiB"),
    ("tokens_that_fit", "tokens that fit", "{}"),
)


def text(report: Report) -> str:
    gpu = report.gpu
    head = (f"preflight: {report.engine} {report.engine_version or '(version unknown)'} "
            f"({report.version_source}), model {report.model}, "
            + (f"GPU {gpu.get('name')} ({gpu.get('memory_gib')} GiB, capability {gpu.get('capability') or '?'})"
               + (f" x{gpu['count']}" if gpu.get("count") else "") if gpu else "no GPU facts"))
    lines = [head]
    for f in report.outcome.findings:
        lines.append(f"{'error' if f.severity == 'error' else 'warning'} [{f.id}] {f.summary}")
        lines += [f"  fix {i}: {fix}" for i, fix in enumerate(f.fixes, 1)]
        if f.resolution:
            lines.append(f"  resolution: {f.resolution}")
        lines.append(f"  checked: {f.check}; more: enrich explain {f.id}")
    if not report.outcome.findings:
        lines.append("nothing predicted to fail")
    plan = [f"  {label}: {fmt.format(report.plan[key])}" for key, label, fmt in PLAN_LINES if key in report.plan]
    if plan:
        lines += ["memory plan (per GPU):"] + plan
    lines += [f"  note: {note}" for note in report.outcome.unchecked]
    return "\n".join(lines)
