"""Reading the command line and the model directory; bad input; exit codes; the start-up hook."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import time

import pytest

from enrich.preflight import cli
from enrich.preflight.flags import LaunchError, parse
from enrich.preflight.model import ModelError, read


@pytest.mark.parametrize("command, engine, tp", [
    ("vllm serve ./m --tensor-parallel-size 8", "vllm", 8),
    ("vllm serve ./m -tp 4", "vllm", 4),
    ("vllm serve ./m --tensor-parallel 2", "vllm", 2),   # argparse prefix of --tensor-parallel-size
    ("python -m vllm.entrypoints.openai.api_server --model ./m --tensor-parallel-size=2", "vllm", 2),
    ("python -m sglang.launch_server --model-path ./m --tp 4", "sglang", 4),
    ("python3 -m sglang.launch_server --model ./m --tensor-parallel-size 2", "sglang", 2),
    ("sglang serve --model-path ./m --tp-size 8", "sglang", 8),
    ("/x/site-packages/sglang/launch_server.py --model-path ./m --tp 2", "sglang", 2),   # sys.argv of python -m
])
def test_command_lines(command, engine, tp):
    launch = parse(command.split())
    assert (launch.engine, launch.model, launch.args["tp"]) == (engine, "./m", tp)


def test_defaults_and_sizes():
    launch = parse("vllm serve ./m --max-model-len 10M".split())
    assert launch.args["max_model_len"] == 10 * 1024**2 and launch.args["gpu_memory_utilization"] == 0.9
    assert parse("python -m sglang.launch_server --model-path m".split()).args["port"] == 30000
    with pytest.raises(LaunchError):
        parse("python train.py".split())


def test_flags_come_from_the_release_table():
    # vLLM's parser takes underscores; a later release's alias; the release's own default
    assert parse("vllm serve ./m --max_model_len 4096".split()).args["max_model_len"] == 4096
    assert parse("vllm serve ./m --device-memory-utilization 0.8".split(), version="0.34.0").args[
        "gpu_memory_utilization"] == 0.8
    assert parse("vllm serve ./m".split(), version="0.6.0").args["max_num_seqs"] == 256
    assert parse("vllm serve ./m".split(), version="0.10.1.1").args["max_num_seqs"] is None
    sglang = parse("python -m sglang.launch_server --model-path m --attention-data-parallel-size 2 "
                   "--enable-dp-attention".split(), version="0.5.23")
    assert sglang.args["attn_dp"] == 2 and sglang.args["enable_dp_attention"] is True
    assert sglang.args["host"] == "127.0.0.1" and sglang.given >= {"attn_dp", "enable_dp_attention"}
    # a prefix the release's other flags make ambiguous is refused, as the engine refuses it
    with pytest.raises(LaunchError, match="ambiguous"):
        parse("vllm serve ./m --max-num 8".split(), version="0.10.1.1")
    # a flag preflight does not read still takes its value (not mistaken for the model or a flag)
    assert parse("vllm serve ./m --served-model-name x --tensor-parallel-size 2".split()).args["tp"] == 2


def write_safetensors(path, tensors):
    header = json.dumps({name: {"dtype": dtype, "shape": shape, "data_offsets": [0, 0]}
                         for name, (dtype, shape) in tensors.items()}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header)


def test_safetensors_headers(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "num_attention_heads": 4}))
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors",
                      {"a": ("BF16", [1024, 512]), "b": ("F8_E4M3", [256, 256]), "__metadata__": ("x", [])})
    write_safetensors(tmp_path / "model-00002-of-00002.safetensors", {"c": ("F32", [10])})
    model = read(str(tmp_path))
    assert model.dtype_bytes == {"BF16": 1024 * 512 * 2, "F8_E4M3": 256 * 256, "F32": 40}
    assert model.weight_bytes == 1024 * 512 * 2 + 256 * 256 + 40 and model.weight_source == "headers"


def test_index_total_size(models):
    assert read(str(models / "Llama-3.1-8B-Instruct")).weight_bytes == 16060522496


def test_hf_cache_layout(tmp_path, models, monkeypatch):
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen2-7B-Instruct" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text((models / "Qwen2-7B-Instruct" / "config.json").read_text())
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert read("Qwen/Qwen2-7B-Instruct").path == snapshot


@pytest.mark.parametrize("content, named", [
    ("{not json", "config.json: not valid JSON"),
    ('{"num_attention_heads": "28"}', "config.json: num_attention_heads must be a non-negative integer"),
    ('{"text_config": 3}', "config.json: text_config must be an object"),
    ('{"text_config": {"num_key_value_heads": -1}}', "config.json: text_config.num_key_value_heads"),
])
def test_unreadable_config_is_exit_2(tmp_path, capsys, content, named):
    (tmp_path / "config.json").write_text(content)
    assert cli.main(["--gpu", "L4", "--", "vllm", "serve", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert named in err and err.count("\n") == 1
    with pytest.raises(ModelError):
        read(str(tmp_path))


def test_exit_codes(models, capsys):
    assert cli.main(["--gpu", "H100-80GB", "--", "vllm", "serve", str(models / "Qwen2-7B-Instruct"), "-tp", "4"]) == 0
    assert cli.main(["--gpu", "H100-80GB", "--", "vllm", "serve", str(models / "Qwen2-7B-Instruct"), "-tp", "8"]) == 1
    assert cli.main(["--gpu", "Z9000", "--", "vllm", "serve", str(models / "Qwen2-7B-Instruct")]) == 2
    assert cli.main(["--", "vllm", "serve", "/no/such/model"]) == 2
    capsys.readouterr()
    assert cli.main(["--json", "--gpu", "H200", "--", "vllm", "serve", str(models / "Qwen2-7B-Instruct"), "-tp", "8"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == 1 and data["findings"][0]["id"] == "vllm/tp-attention-heads"
    assert data["plan"]["kv_bytes_per_token_per_gpu"] == 28 * 2 * 1 * 128 * 2


def _enrich(*args, env=None):
    return subprocess.run([sys.executable, "-m", "enrich", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def test_cli_process_is_fast_and_never_imports_torch(models):
    code = ("import sys, time; t = time.perf_counter(); from enrich.cli import main; "
            f"rc = main(['preflight', '--gpu', 'H100-80GB', '--', 'vllm', 'serve', {str(models / 'Llama-3.1-70B-Instruct')!r}, '-tp', '6']); "
            "print(rc, 'torch' in sys.modules, round(time.perf_counter() - t, 3))")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.split()
    wall = time.perf_counter() - start
    assert out[-3:-1] == ["1", "False"], out
    assert wall < 2.0 and float(out[-1]) < 1.0, (wall, out)


def test_at_startup_block_and_warn(models):
    code = ("from enrich.preflight import at_startup; "
            f"at_startup('vllm', ['vllm', 'serve', {str(models / 'Qwen2-7B-Instruct')!r}, '-tp', '8']); print('went on')")
    blocked = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "ENRICH_PREFLIGHT": "block"})
    assert blocked.returncode == 78 and "[vllm/tp-attention-heads]" in blocked.stderr
    warned = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "ENRICH_PREFLIGHT": "warn"})
    assert warned.returncode == 0 and "went on" in warned.stdout and "[vllm/tp-attention-heads]" in warned.stderr
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ENRICH_PREFLIGHT": "off"})
    assert off.returncode == 0 and "vllm/tp-attention-heads" not in off.stderr


def test_fixes_spelled_for_the_launch_release(make_model):
    from enrich.preflight.check import pick_gpu, preflight
    # a 70B checkpoint on one 80 GB GPU: sglang's weights-leave-no-kv-cache fix names
    # --cuda-graph-max-bs-decode, which sglang 0.4.0 spelled --cuda-graph-max-bs; the fix is spelled
    # from the same flag table the command line was parsed with
    path = make_model("Llama-3.1-70B-Instruct")
    def fixes(version):
        report = preflight(f"python -m sglang.launch_server --model-path {path}".split(), engine_version_text=version,
                           gpu=pick_gpu("H100-80GB", None, None, measure=False), env={}, check_host=False)
        return " ".join(fix for f in report.outcome.findings for fix in f.fixes)
    assert "--cuda-graph-max-bs-decode" in fixes("0.5.23")
    old = fixes("0.4.0")
    assert re.search(r"--cuda-graph-max-bs(?![\w-])", old) and "--cuda-graph-max-bs-decode" not in old
