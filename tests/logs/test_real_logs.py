"""enrich explain on real log text: pastes from public issues (tests/fixtures/logs, each with its
source in SOURCES.json) and the shapes real logs take."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from enrich.logs import findings
from enrich.logs.findings import NUMBER
from enrich.logs.reader import module_of, strip_prefixes

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"
SOURCES = json.loads((LOGS / "SOURCES.json").read_text()) if (LOGS / "SOURCES.json").exists() else []


def explain_file(path: Path):
    with open(path, encoding="utf-8", errors="replace", newline="") as stream:
        return findings(stream, all=True)


def _same(expected: str, found: str) -> bool:
    """Message first lines agree, up to surrounding blanks and the numbers that differ per rank."""
    first = lambda text: NUMBER.sub("#", (text or "").strip().splitlines()[0].strip() if (text or "").strip() else "")
    return first(expected) == first(found) or (first(expected) and first(expected) in NUMBER.sub("#", found))


@pytest.mark.parametrize("source", SOURCES, ids=[s["file"] for s in SOURCES])
def test_real_paste(source):
    """Every error the paste shows is found: same exception type as written (or an error line
    when it is not an exception), same message; cut tracebacks are reported partial."""
    found = explain_file(LOGS / source["file"])
    for expected in source["findings"]:
        if expected.get("partial"):
            # a cut traceback: reported partial, or grouped with a complete report of the same error
            assert any(f.partial or (f.id and _same(expected["message"], f.message)) for f in found), \
                (source["file"], expected)
            continue
        candidates = [f for f in found if f.exception == (expected["exception"] or f.exception)]
        assert any(not expected["message"] or _same(expected["message"], f.message) for f in candidates), \
            (source["file"], expected, [(f.exception, f.message[:80]) for f in found])


@pytest.mark.parametrize("raw, stream, content", [
    ("[2025-01-01 10:00:00 TP3] Scheduler hit an exception: Traceback", "TP3", "Scheduler hit an exception: Traceback"),
    ("(EngineCore_DP0 pid=150) ERROR 02-23 02:23:19 [core.py:948] ValueError: x", "EngineCore_DP0 pid=150", "ValueError: x"),
    ("(VllmWorker rank=1 pid=97) INFO 02-23 02:23:19 [x.py:1] hi", "VllmWorker rank=1 pid=97", "hi"),
    ("[rank0]: torch.OutOfMemoryError: CUDA out of memory.", "rank0", "torch.OutOfMemoryError: CUDA out of memory."),
    ("sglang-1  | [2025-01-01 10:00:00 DP1 TP3] hi", "sglang-1 DP1 TP3", "hi"),
    ("2026-01-02T03:04:05.123456Z ValueError: x", "", "ValueError: x"),
    ("\x1b[31mRuntimeError: red\x1b[0m", "", "RuntimeError: red"),
    ("progress 10%\rprogress 100%\rValueError: after bars", "", "ValueError: after bars"),
])
def test_prefixes_are_seen_through(raw, stream, content):
    assert strip_prefixes(raw) == (stream, content)


def test_module_names_from_printed_paths():
    assert module_of("/usr/local/lib/python3.11/site-packages/sglang/srt/models/llama.py") == "sglang.srt.models.llama"
    assert module_of("/sgl-workspace/sglang/python/sglang/srt/utils/__init__.py") == "sglang.srt.utils"
    assert module_of("script.py") == "script"


def run(text: str):
    return findings(io.StringIO(text), all=True)


TP_ASSERT = """[2026-03-04 09:11:08 TP{r}] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility
    assert numerator % denominator == 0, "{{}} is not divisible by {{}}".format(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError: 16 is not divisible by 6
"""


def test_eight_ranks_are_one_finding_with_a_count():
    [finding] = run("".join(TP_ASSERT.format(r=r) for r in range(8)))
    assert finding.count == 8 and finding.id == "sglang/not-divisible" and finding.line == 1
    assert finding.streams == [f"TP{r}" for r in range(8)]


def test_chained_exceptions_name_the_root_cause():
    text = """Traceback (most recent call last):
  File "/x/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility
    assert numerator % denominator == 0
AssertionError: 16 is not divisible by 6

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/x/vllm/v1/engine/core.py", line 939, in run_engine_core
    raise RuntimeError("Engine core initialization failed. See root cause above.")
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""
    inner, outer = run(text)
    assert inner.root_cause and inner.id == "sglang/not-divisible"
    assert not outer.root_cause and outer.exception == "RuntimeError"


def test_interleaved_processes_keep_their_tracebacks_apart():
    text = """(EngineCore_DP0 pid=150) ERROR 02-23 02:23:19 [core.py:948] Traceback (most recent call last):
(VllmWorker rank=1 pid=97) ERROR 02-23 02:23:19 [x.py:1] Traceback (most recent call last):
(EngineCore_DP0 pid=150) ERROR 02-23 02:23:19 [core.py:948]   File "/a/vllm/v1/engine/core.py", line 9, in f
(VllmWorker rank=1 pid=97) ERROR 02-23 02:23:19 [x.py:1]   File "/a/vllm/v1/worker/gpu_worker.py", line 5, in g
(EngineCore_DP0 pid=150) ERROR 02-23 02:23:19 [core.py:948] ValueError: first
(VllmWorker rank=1 pid=97) ERROR 02-23 02:23:19 [x.py:1] KeyError: 'second'
"""
    first, second = run(text)
    assert (first.exception, first.message, first.site) == ("ValueError", "first", "vllm.v1.engine.core:f")
    assert (second.exception, second.message, second.site) == ("KeyError", "'second'", "vllm.v1.worker.gpu_worker:g")


def test_cut_off_traceback_is_identified_from_its_frames_and_marked_partial():
    text = """[2026-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/sglang/srt/models/qwen3.py", line 172, in __init__
    assert self.total_num_kv_heads % tp_size == 0
[2026-01-01 10:00:01] Received sigquit from a child process. It usually means the child failed.
"""
    [finding] = run(text)
    assert finding.partial and finding.exception == "" and finding.id == "sglang/attn-tp-kv-heads"


def test_cpp_abort_and_multi_line_messages():
    text = ("terminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: an illegal memory access was encountered\n"
            "CUDA kernel errors might be asynchronously reported at some other API call\n"
            "\n"
            "Traceback (most recent call last):\n"
            '  File "/x/mlx_lm/utils.py", line 3, in load_model\n'
            "ValueError: Received 2 parameters not in model: \n"
            "model.extra.weight,\n"
            "model.other.weight.\n")
    abort, load = run(text)
    assert abort.exception == "c10::Error" and abort.message.startswith("CUDA error: an illegal memory access")
    assert "asynchronously reported" in abort.message
    assert load.message.splitlines()[1:] == ["model.extra.weight,", "model.other.weight."]


def test_json_output_shape(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("".join(TP_ASSERT.format(r=r) for r in range(2)))
    out = subprocess.run([sys.executable, "-m", "enrich", "explain", "--json", str(log)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1                      # errors were found
    [item] = json.loads(out.stdout)["findings"]
    assert {k: item[k] for k in ("id", "exception", "message", "line", "count")} == {
        "id": "sglang/not-divisible", "exception": "AssertionError", "message": "16 is not divisible by 6",
        "line": 1, "count": 2}
    assert item["fixes"][0].startswith("choose a TP size from 1, 2, 4, 8, 16")


GPU_RECORDS = Path(__file__).parents[1] / "fixtures" / "gpu"


@pytest.mark.parametrize("scenario, entry", [("device_side_assert", "torch/cuda-device-assert"),
                                             ("illegal_memory_access", "torch/cuda-illegal-address")])
def test_stderr_of_real_gpu_failures(scenario, entry):
    """Text that processes printed on an H200 (tests/gpu, recorded): explained without enrich in them."""
    records = [json.loads(line) for line in (GPU_RECORDS / "h200-run2.jsonl").read_text().splitlines()]
    text = next(r["message"] for r in records if r["scenario"] == scenario)
    text = "\n".join(line for line in text.splitlines() if not line.startswith(("[", "  fix", "  more")))
    found = run(text)
    assert entry in {f.id for f in found}, [(f.exception, f.message[:60], f.id) for f in found]


def test_log_of_a_real_failing_child_process_without_enrich(tmp_path):
    """A real sglang failure logged by a child process that did not have enrich: explained afterwards."""
    pytest.importorskip("sglang")
    code = ("import logging, traceback\n"
            "logging.basicConfig(format='[%(asctime)s TP0] %(message)s')\n"
            "from sglang.srt.distributed.utils import ensure_divisibility\n"
            "try:\n    ensure_divisibility(16, 6)\n"
            "except Exception:\n    logging.error('Scheduler hit an exception: ' + traceback.format_exc())\n")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**__import__("os").environ, "ENRICH_DISABLED": "1"})
    assert "Scheduler hit an exception: Traceback" in child.stderr and "[sglang/" not in child.stderr
    (tmp_path / "scheduler.log").write_text(child.stderr)
    [finding] = [f for f in explain_file(tmp_path / "scheduler.log") if f.id]
    assert finding.id == "sglang/not-divisible" and finding.streams == ["TP0"]
    assert finding.site == "sglang.srt.distributed.utils:ensure_divisibility"


def test_an_assert_the_catalog_does_not_know_is_stated_from_its_printed_line():
    text = """Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/vllm/v1/core/sched/scheduler.py", line 977, in update_from_output
    assert not prompt_logprobs_tensors
AssertionError
"""
    [finding] = run(text)
    assert finding.id is None and finding.generic
    assert finding.summary.startswith("`assert not prompt_logprobs_tensors` failed in "
                                      "vllm.v1.core.sched.scheduler:update_from_output")
