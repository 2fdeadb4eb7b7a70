"""Property: a TP or EP size a finding suggests passes every rule when launched with it."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings, strategies as st

from enrich.preflight.check import pick_gpu, preflight

SIZE_VALUES = ("valid_tp", "sizes", "head_divisors", "nearest", "valid_ep")


def suggested(report):
    for f in report.outcome.findings:
        for name in SIZE_VALUES:
            if name in f.values:
                for size in re.findall(r"\d+", f.values[name]):
                    yield f.id, ("ep" if name == "valid_ep" else "tp"), int(size)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(heads=st.sampled_from([8, 12, 14, 16, 24, 28, 32, 40, 48, 52, 56, 64]),
       group=st.sampled_from([1, 2, 4, 7, 8]),
       inter=st.one_of(st.integers(min_value=8, max_value=600).map(lambda n: n * 64), st.integers(512, 40000)),
       experts=st.sampled_from([0, 8, 16, 60, 64]),
       tp=st.integers(min_value=2, max_value=16), ep=st.integers(min_value=1, max_value=8),
       engine=st.sampled_from(["vllm", "sglang"]))
def test_every_suggested_size_passes_every_rule(tmp_path_factory, heads, group, inter, experts, tp, ep, engine):
    kv = max(1, heads // group) if heads % group == 0 else heads
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_attention_heads": heads,
              "num_key_value_heads": kv, "hidden_size": heads * 128, "intermediate_size": inter,
              "num_hidden_layers": 4, "vocab_size": 32000, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    if experts:
        config.update(num_local_experts=experts, architectures=["MixtralForCausalLM"], model_type="mixtral")
    folder = tmp_path_factory.mktemp("m")
    (folder / "config.json").write_text(json.dumps(config))
    if engine == "vllm":
        command = f"vllm serve {folder} --tensor-parallel-size {tp}"
    else:
        command = f"python -m sglang.launch_server --model-path {folder} --tp {tp} --ep {ep}"
    gpu = pick_gpu("H100-80GB", None, 16, measure=False)
    report = preflight(command.split(), gpu=gpu, env={}, check_host=False)
    for entry_id, what, size in suggested(report):
        flag = {"tp": "--tensor-parallel-size" if engine == "vllm" else "--tp", "ep": "--ep"}[what]
        fixed = re.sub(rf"{flag} \d+", f"{flag} {size}", command)
        again = preflight(fixed.split(), gpu=gpu, env={}, check_host=False)
        errors = [f.id for f in again.outcome.findings if f.severity == "error"]
        assert errors == [], (entry_id, what, size, errors)
