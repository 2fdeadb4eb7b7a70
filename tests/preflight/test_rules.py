"""Each rule predicted from a real public config, with the entry's own ID, summary and values."""

from __future__ import annotations

import pytest

from enrich.preflight.check import pick_gpu, preflight


def run(command: str, gpu: str | None = None, version: str | None = None, env=None):
    return preflight(command.split(), gpu=pick_gpu(gpu, None, None, measure=False),
                     engine_version_text=version, env=env or {}, check_host=False)


def ids(report):
    return [f.id for f in report.outcome.findings]


def finding(report, entry_id):
    return next(f for f in report.outcome.findings if f.id == entry_id)


def test_query_heads_vs_tp_vllm(models):
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct --tensor-parallel-size 8")
    f = finding(report, "vllm/tp-attention-heads")
    assert f.summary == "28 attention heads cannot be split evenly over --tensor-parallel-size 8."
    # 28 would split the heads but not the MLP (18944 / 28): the fix offers only sizes that pass every rule
    assert f.fixes[0].startswith("use a --tensor-parallel-size from 1, 2, 4:")
    assert report.exit_code == 1


def test_query_heads_vs_tp_sglang(models):
    report = run(f"python -m sglang.launch_server --model-path {models}/Qwen2-7B-Instruct --tp 8")
    f = finding(report, "sglang/attn-tp-heads")
    assert f.values["heads"] == "28" and f.values["tp"] == "8"
    assert "--tp 4" in f.fixes[0]


def test_kv_replication(models, make_model):
    report = run(f"python -m sglang.launch_server --model-path {models}/Qwen2-7B-Instruct --tp-size 14")
    assert "sglang/attn-tp-kv-replication" in ids(report)
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct -tp 14")
    f = finding(report, "vllm/not-divisible")
    # the embedding is built first: the padded vocabulary (152064) is what fails at TP 14
    assert (f.values["numerator"], f.values["denominator"]) == ("152064", "14")
    path = make_model("Qwen2-7B-Instruct", vocab_size=152320)   # 152320 = 14 x 10880: the KV heads fail next
    f = finding(run(f"vllm serve {path} -tp 14"), "vllm/not-divisible")
    assert (f.values["numerator"], f.values["denominator"]) == ("14", "4")


def test_vocabulary_padded_to_64_then_split(make_model):
    # vLLM pads the vocabulary to a multiple of 64 before dividing it by TP: 151552 over 6 fails,
    # 32001 (padded to 32064) over 6 passes
    f = finding(run(f"vllm serve {make_model('Qwen2-7B-Instruct', vocab_size=151552, num_attention_heads=24, num_key_value_heads=6)} -tp 6"),
                "vllm/not-divisible")
    assert (f.values["numerator"], f.values["denominator"]) == ("151552", "6")
    report = run(f"vllm serve {make_model('Qwen2-7B-Instruct', vocab_size=32001, num_attention_heads=24, num_key_value_heads=6, intermediate_size=18432)} -tp 6")
    assert "vllm/not-divisible" not in ids(report)


def test_kv_split(models, make_model):
    path = make_model("Llama-3.1-8B-Instruct", num_attention_heads=24, num_key_value_heads=12, hidden_size=3072)
    report = run(f"python -m sglang.launch_server --model-path {path} --tp-size 8")
    assert "sglang/attn-tp-kv-heads" in ids(report)
    # 6 splits the heads but not the MLP (14336 / 6): only 4 is offered (12 is more than the 8 GPUs in use)
    assert finding(report, "sglang/attn-tp-kv-heads").fixes[0].startswith("launch with --tp 4: attention TP sizes")


def test_vision_tower_heads(models):
    report = run(f"vllm serve {models}/Qwen2-VL-7B-Instruct --tensor-parallel-size 7")
    f = finding(report, "vllm/not-divisible")
    assert (f.values["numerator"], f.values["denominator"]) == ("16", "7")
    # run the encoder data-parallel: the vision rule no longer applies, the language model's
    # embedding (152064 = 7 x 21723 + 3) is the next to fail
    report = run(f"vllm serve {models}/Qwen2-VL-7B-Instruct --tensor-parallel-size 7 --mm-encoder-tp-mode data")
    assert finding(report, "vllm/not-divisible").values["numerator"] == "152064"


def test_experts_vs_ep(models):
    report = run(f"python -m sglang.launch_server --model-path {models}/Mixtral-8x7B-Instruct-v0.1 --tp 8 --ep 3")
    f = finding(report, "sglang/moe-experts-ep")
    assert f.summary == "8 routed experts cannot be split evenly over --ep-size 3."
    assert "1, 2, 4, 8" in f.fixes[0]


def test_marlin_shape_before_0_34(models):
    cmd = f"vllm serve {models}/Qwen2.5-VL-72B-Instruct-AWQ --tensor-parallel-size 2"
    f = finding(run(cmd, "A100-80GB", "0.7.2"), "vllm/marlin-shape-tp")
    assert f.values["size"] == "14784" and f.values["min_thread"] == "128"
    # 0.34 pads the tile instead of raising; without Marlin the group rule applies
    assert "vllm/marlin-shape-tp" not in ids(run(cmd, "A100-80GB", "0.34.0"))
    plain = run(cmd + " --quantization awq", "A100-80GB", "0.7.2")
    assert finding(plain, "vllm/quant-group-alignment-tp").values["input_size_per_partition"] == "14784"


def test_head_size_vs_forced_backend(models):
    cmd = f"vllm serve {models}/phi-2"
    assert not run(cmd, "L4", "0.10.1").outcome.findings
    report = run(cmd, "L4", "0.10.1", env={"VLLM_ATTENTION_BACKEND": "FLASHINFER"})
    f = finding(report, "vllm/head-size-unsupported")
    assert f.summary.startswith("FlashInferBackend has no kernel for head size 80")


def test_bf16_on_turing(models):
    cmd = f"vllm serve {models}/Llama-3.1-8B-Instruct --max-model-len 4096 --dtype bfloat16"
    f = finding(run(cmd, "T4", "0.10.1"), "vllm/bf16-compute-capability")
    assert f.summary == "The T4 GPU has compute capability 7.5; bfloat16 needs 8.0 or newer."
    # under --dtype auto, releases from 0.9 fall back to float16 themselves
    auto = run(f"vllm serve {models}/Llama-3.1-8B-Instruct --max-model-len 4096", "T4", "0.10.1")
    assert "vllm/bf16-compute-capability" not in ids(auto)
    assert "vllm/bf16-compute-capability" in ids(run(f"vllm serve {models}/Llama-3.1-8B-Instruct --max-model-len 4096", "T4", "0.6.3"))


def test_fp8_vs_capability(models):
    report = run(f"vllm serve {models}/DeepSeek-V3 -tp 8", "A100-80GB", "0.4.3")
    assert finding(report, "vllm/quantization-capability").values["min_cap"] == "89"
    report = run(f"python -m sglang.launch_server --model-path {models}/DeepSeek-V3 --tp 16", "A100-80GB")
    assert "triton/fp8e4nv-unsupported" in ids(report)


def test_architecture_unknown(make_model):
    path = make_model(architectures=["FooBarForCausalLM"], model_type="foobar", num_attention_heads=8,
                      num_key_value_heads=8, hidden_size=512, num_hidden_layers=2)
    report = run(f"python -m sglang.launch_server --model-path {path}")
    assert {"sglang/arch-no-model-module", "transformers/unknown-model-type"} <= set(ids(report))
    assert finding(report, "transformers/unknown-model-type").values["model_type"] == "foobar"


def test_remote_code(make_model):
    path = make_model(architectures=["FooBarForCausalLM"], model_type="foobar", auto_map={"AutoConfig": "c.FooConfig"},
                      num_attention_heads=8, num_key_value_heads=8, hidden_size=512, num_hidden_layers=2)
    report = run(f"python -m sglang.launch_server --model-path {path}")
    assert "transformers/trust-remote-code" in ids(report)
    assert "transformers/trust-remote-code" not in ids(run(f"python -m sglang.launch_server --model-path {path} --trust-remote-code"))


def test_max_model_len_over_derived(models):
    report = run(f"vllm serve {models}/Qwen2-7B-Instruct --max-model-len 65536")
    f = finding(report, "vllm/max-model-len-over-derived")
    assert f.fixes[0] == "set --max-model-len 32768 or less"
    assert not run(f"vllm serve {models}/Qwen2-7B-Instruct --max-model-len 65536",
                   env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}).outcome.findings


def test_weights_do_not_fit(models):
    report = run(f"vllm serve {models}/Llama-3.1-70B-Instruct --max-model-len 8192", "L4")
    assert ids(report)[0] == "torch/cuda-oom"
    assert "131.42 GiB" in finding(report, "torch/cuda-oom").summary
    report = run(f"vllm serve {models}/Llama-3.1-70B-Instruct -tp 2 --max-model-len 8192 --gpu-memory-utilization 0.7", "A100-80GB")
    assert "vllm/no-kv-cache-memory" in ids(report)


def test_kv_capacity_llama4_scout(models):
    report = run(f"vllm serve {models}/Llama-4-Scout-17B-16E-Instruct --tensor-parallel-size 8 --max-model-len 10485760", "H200")
    f = finding(report, "vllm/kv-cache-max-seq-len")
    assert report.plan["kv_bytes_per_token_per_gpu"] == 24 * 1024
    assert f.values["needed_gib"] == "240.00"


def test_sglang_weights_leave_no_kv_cache(models):
    report = run(f"python -m sglang.launch_server --model-path {models}/Llama-3.1-70B-Instruct --tp 2 --mem-fraction-static 0.8", "A100-80GB")
    f = finding(report, "sglang/weights-leave-no-kv-cache")
    assert f.values["current"] == "0.8"


@pytest.mark.parametrize("command", [
    "vllm serve {m}/Llama-3.1-8B-Instruct --max-model-len 32768",
    "vllm serve {m}/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --max-model-len 65536",
    "python -m sglang.launch_server --model-path {m}/Qwen2-7B-Instruct --tp 4",
    "vllm serve {m}/gemma-2-9b-it",
    "vllm serve {m}/Mixtral-8x7B-Instruct-v0.1 --tensor-parallel-size 2",
])
def test_known_good_launches(models, command):
    report = run(command.format(m=models), "H100-80GB")
    assert report.outcome.findings == [], [f.summary for f in report.outcome.findings]
