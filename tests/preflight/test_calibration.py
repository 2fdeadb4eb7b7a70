"""The activation model's constants are the fit to the collected profiling prints."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from enrich.preflight import plan
from enrich.preflight.check import pick_gpu, preflight

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "preflight"


def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_constants_match_the_fit():
    fitted = load("calibrate").fit(load("calibrate").profiles())
    for name in ("v0-old-profiler", "v0"):
        model, fit = plan.ACTIVATION[name], fitted[name]
        assert abs(model.per_token - fit["per_token"]) / fit["per_token"] < 0.02
        assert abs(model.sampler_copies - fit["sampler_copies"]) <= 0.02 * max(fit["sampler_copies"], 1)
        # the band holds every print of its group
        assert model.spread[0] <= fit["spread"][0] and model.spread[1] >= fit["spread"][1]
    one_gpu = fitted["non_torch_one_gpu"]
    low, central, high = plan.NON_TORCH_GIB[1]
    assert low <= one_gpu["low"] and central == one_gpu["median"] and high >= one_gpu["high"]


def test_profiled_print_reproduced(models):
    # vllm#10517: Llama-3.1-8B on an RTX 3090, vLLM 0.6.4, --max-model-len 29000: the engine found
    # room for 23648 tokens (1478 blocks of 16); the plan's central figure is within 2 %
    report = preflight(f"vllm serve {models}/Llama-3.1-8B-Instruct --max-model-len 29000".split(),
                       gpu=pick_gpu("RTX3090", None, None, measure=False), engine_version_text="0.6.4",
                       env={}, check_host=False)
    assert abs(report.plan["tokens_that_fit"] - 23648) / 23648 < 0.02
    low, high = report.plan["tokens_that_fit_band"]
    assert low <= 23648 <= high


def test_expert_parallel_weights_per_gpu(models):
    # DeepSeek-V3 at TP 1 x DP 8 with expert parallelism: the routed experts are split over 8 ranks
    report = preflight(f"vllm serve {models}/DeepSeek-V3 -tp 1 -dp 8 --enable-expert-parallel --trust-remote-code".split(),
                       gpu=pick_gpu("H200", None, None, measure=False), engine_version_text="0.10.1.1",
                       env={}, check_host=False)
    assert report.plan["weights_per_gpu_gib"] < report.plan["weights_total_gib"] / 4
    assert report.exit_code == 0
