"""Each wrapper kind peeled from real lines: what is left is the process's own text, with its
indentation; the wrapper's process tags name the stream."""

import io
import json

import pytest

from enrich.logs.paste import split_collapsed, wrapped_rows
from enrich.logs.peel import Peeler
from enrich.logs.reader import module_of, strip_prefixes

FRAME = '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 293, in execute_model'


@pytest.mark.parametrize("raw, stream, content", [
    # Kubernetes --timestamps and --prefix, each and both
    (f"2025-01-20T19:10:07.123456789Z {FRAME}", "", FRAME),
    (f"[pod/vllm-7d9f8-abcde/vllm] {FRAME}", "pod/vllm-7d9f8-abcde/vllm", FRAME),
    (f"[pod/vllm-7d9f8-abcde/vllm] 2025-01-20T19:10:07.123456789Z {FRAME}", "pod/vllm-7d9f8-abcde/vllm", FRAME),
    # journald / syslog
    (f"Jun 11 01:50:31 gpu-node-7 dockerd[1234]: {FRAME}", "dockerd[1234]", FRAME),
    # docker compose
    (f"deepseek-v32-exp  | {FRAME}", "deepseek-v32-exp", FRAME),
    # Ray, with its colours
    (f"\x1b[36m(RayWorkerWrapper pid=2417, ip=10.0.0.7)\x1b[0m {FRAME}", "RayWorkerWrapper pid=2417, ip=10.0.0.7", FRAME),
    # torchrun
    ("[rank3]: torch.OutOfMemoryError: CUDA out of memory.", "rank3", "torch.OutOfMemoryError: CUDA out of memory."),
    # the engines
    ("[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):", "TP2",
     "Scheduler hit an exception: Traceback (most recent call last):"),
    ("(VllmWorker rank=0 pid=226) ERROR 06-11 01:51:09 [multiproc_executor.py:527]     output = func(*args, **kwargs)",
     "VllmWorker rank=0 pid=226", "    output = func(*args, **kwargs)"),
    ("ERROR 12-09 00:49:29 engine.py:366] Traceback (most recent call last):", "", "Traceback (most recent call last):"),
    (f" ERROR 06-29 13:11:30 [multiproc_executor.py:1000] {FRAME}", "", FRAME),     # pasted one space in
    # vLLM's colour codes with their escape character lost in a paste
    ("[1;36m(APIServer pid=1554) [0;0m ERROR 11-11 23:20:26 [async_llm.py:524]   File \"/x/vllm/a.py\", line 1, in f",
     "APIServer pid=1554", '  File "/x/vllm/a.py", line 1, in f'),
    # c10d's glog lines keep their level
    ("[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout",
     "rank1", "[Rank 1] Watchdog caught collective operation timeout"),
    # NCCL's host:pid:tid [device]
    ("n122-246-085:12253:12399 [7] NCCL INFO bootstrap.cc:270 -> 2", "n122-246-085:12253:12399", "NCCL INFO bootstrap.cc:270 -> 2"),
    # Slurm's srun --label, CI timestamps
    (f"0: {FRAME}", "0", FRAME),
    (f"2025-01-20T19:10:07.1234567Z {FRAME}", "", FRAME),
    # paste damage: markdown quotes, a CI viewer's column
    (f"> {FRAME}", "", FRAME),
    (f"> [2025-11-06T02:10:00.702Z] {FRAME}", "", FRAME),
    ("  > ValueError: quoted in an indented paragraph", "", "ValueError: quoted in an indented paragraph"),
    (f"  | [2025-03-10T15:07:20Z] ERROR 03-10 08:07:20 [core.py:302] {FRAME}", "", FRAME),
    # torch.compile's glog lines, indented as a block
    ("   E1004 21:11:19.113000 467163 torch/_inductor/runtime/triton_heuristics.py:817] [0/0] "
     "triton.compiler.errors.CompilationError: at 18:23:", "", "triton.compiler.errors.CompilationError: at 18:23:"),
    # a logging format with the date written month first ("%m-%d-%Y-%H:%M:%S")
    (f"(Worker_TP7 pid=380351) ERROR 04-28-2026-15:50:31.931 [multiproc_executor.py:706] {FRAME}",
     "Worker_TP7 pid=380351", FRAME),
    # control characters as an editor shows them, pasted as text: "^[" for ESC, "^M" for a carriage return
    (f"^[[1;36m(EngineCore_DP0 pid=6444)^[[0;0m ERROR 12-23 07:23:11 [core.py:708] {FRAME}^M",
     "EngineCore_DP0 pid=6444", FRAME),
    # Ray's logger: a tab after the time
    ("2023-07-09 03:37:34,978\tERROR trial_runner.py:1062 -- Trial lambda_c9d83_00000: Error processing event.", "",
     "trial_runner.py:1062 -- Trial lambda_c9d83_00000: Error processing event."),
    # progress bars overwritten with carriage returns
    ("progress 10%\rprogress 100%\rValueError: after bars", "", "ValueError: after bars"),
    # GitHub Actions' log viewer copied: its time, a space and a tab, then the job's line
    ("2026-09-03T19:49:04.3497440Z \t(EngineCore pid=1371) ERROR 09-03 19:44:07 [v1/engine/core.py:1330] "
     "ValueError: Free memory on device cuda:0", "EngineCore pid=1371", "ValueError: Free memory on device cuda:0"),
    # a launcher's rank label ("201: ") under a collector's service tag
    ("trainer-1  | 201:     torch.distributed.barrier()", "trainer-1 201", "    torch.distributed.barrier()"),
    # Python logging's "%(asctime)s - %(name)s - %(levelname)s - %(message)s", and without the name
    ("2024-12-16 17:10:56,770 - root - ERROR - Traceback (most recent call last):", "", "Traceback (most recent call last):"),
    (f"2026-04-07 13:39:50,007 - WARNING - {FRAME}", "", FRAME),
    # and a server's request id in brackets after the level
    ("2026-06-05 10:22:00,777 - root - ERROR - [-] - Model type gemma4_unified not supported.", "",
     "Model type gemma4_unified not supported."),
])
def test_a_wrapper_is_peeled_and_the_indentation_kept(raw, stream, content):
    assert strip_prefixes(raw) == (stream, content)


def test_levels_carried_by_prefixes():
    peeler = Peeler()
    [line] = peeler.peel(1, "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 "
                            "(errno: 98 - Address already in use).")
    assert line.level == "W" and line.text.startswith("[c10d] The server socket")
    [line] = peeler.peel(2, "ERROR 07-28 15:07:22 [core.py:632] RuntimeError: CUDA error: no kernel image")
    assert line.level == "ERROR" and line.text == "RuntimeError: CUDA error: no kernel image"
    # Python logging's dashed format keeps an error's level, not a warning's (servers log a
    # request's failure as a warning, and a warning's quotes are not read)
    [line] = peeler.peel(3, "2026-06-05 10:22:00,777 - root - ERROR - boom")
    assert line.level == "ERROR" and line.text == "boom"
    [line] = peeler.peel(4, "2026-06-05 10:22:00,779 - omlx.server - WARNING - POST /load -> 500: boom")
    assert line.level == "" and line.text == "POST /load -> 500: boom"


def test_cri_partial_lines_are_joined():
    peeler = Peeler()
    pieces = ['2025-07-25T07:53:08.21748708+08:00 stderr P   File "/sgl-workspace/sglang/python/sglang/srt/',
              '2025-07-25T07:53:08.21748708+08:00 stderr P managers/scheduler.py", line 2769, in run_',
              '2025-07-25T07:53:08.21748708+08:00 stderr F scheduler_process']
    assert peeler.peel(1, pieces[0]) == [] and peeler.pending
    assert peeler.peel(2, pieces[1]) == []
    [line] = peeler.peel(3, pieces[2])
    assert line.text == '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2769, in run_scheduler_process'
    assert not peeler.pending


def test_docker_json_file_lines_are_decoded():
    peeler = Peeler()
    record = {"log": FRAME + "\n", "stream": "stderr", "time": "2025-01-20T19:10:07.123456789Z"}
    [line] = peeler.peel(1, json.dumps(record))
    assert line.text == FRAME


def test_ray_repeats_are_counted():
    raw = ("(SGLangEngine pid=23902) [2026-01-04 01:42:55 TP1] Scheduler hit an exception: Traceback "
           "(most recent call last): [repeated 2x across cluster]")
    [line] = Peeler().peel(1, raw)
    assert line.repeats == 2 and line.stream == "SGLangEngine pid=23902 TP1"
    assert line.text == "Scheduler hit an exception: Traceback (most recent call last):"


def test_a_prefix_in_no_list_is_peeled_when_it_repeats():
    lines = ["vllm-7d9f8-abcde vllm Traceback (most recent call last):", f"vllm-7d9f8-abcde vllm {FRAME}",
             "vllm-7d9f8-abcde vllm     output = func(*args, **kwargs)"]
    peeler = Peeler()
    [line] = peeler.peel(2, lines[1], (lines[0], lines[2]))
    assert (line.stream, line.text) == ("vllm-7d9f8-abcde vllm", FRAME)
    # text that merely starts alike is left alone
    items = ["model.layers.0.mlp.weight,", "model.layers.1.mlp.weight,"]
    assert Peeler().peel(1, items[0], (items[1],))[0].text == items[0]



def test_a_repeated_prefix_is_told_by_the_whole_line_before_a_cri_split_one():
    """A diff viewer's line numbers ("68+ ") repeat as a tag. Where kubelet split the line before
    into pieces, its first piece holds the tag: the neighbour is the whole line, not its last piece,
    in the reader of a whole paste and in the streaming one of a large log alike."""
    import io

    from enrich.logs.reader import read_lines
    from enrich.logs.stream import scan
    bare = ["67+ raise ValueError(",
            "68+ ValueError: Model architectures ['<arch>'] failed to be inspected. Please check the logs.",
            "69+ ```", "70+", "71+ This error means that vLLM failed to import the model file."]
    ts = "2025-01-20T19:10:07.123456789Z stderr"
    cri = []
    for line in bare:
        pieces = [line[i:i + 40] for i in range(0, len(line), 40)]
        cri += [f"{ts} {'P' if i < len(pieces) - 1 else 'F'} {p}" for i, p in enumerate(pieces)]
    messages = [[e.message for e in read_lines(text)[0]] for text in (bare, cri)]
    streamed = [e.message for e in scan(io.StringIO("\n".join(cri) + "\n"))]
    assert messages[0] == messages[1] == streamed == [
        "Model architectures ['<arch>'] failed to be inspected. Please check the logs."]


def test_pytest_column_keeps_relative_indentation():
    peeler = Peeler()
    lines = ["E       Traceback (most recent call last):", f"E       {FRAME}", "E           raise ValueError(x)"]
    texts = [peeler.peel(n, raw)[0].text for n, raw in enumerate(lines)]
    assert texts == ["Traceback (most recent call last):", FRAME, "    raise ValueError(x)"]


def test_a_blank_pytest_line_says_nothing_of_the_columns_width():
    peeler = Peeler()
    lines = ["E", "E       Traceback (most recent call last):", f"E       {FRAME}"]
    assert [peeler.peel(n, raw)[0].text for n, raw in enumerate(lines)] == ["", "Traceback (most recent call last):", FRAME]


def test_content_under_a_prefix_is_read_as_it_would_be_bare():
    """A time indented under Ray's tag stays content, as the bare indented line keeps it; a
    table's cell "Config |" is no compose service (compose names its containers "web-1")."""
    indented = "         [20:46:58] /src/memory_manager.cc:115: InternalError: Check failed"
    assert strip_prefixes("(RayWorkerWrapper pid=2417, ip=10.0.0.7) " + indented)[1] == indented
    assert strip_prefixes("| Config |")[1] == "Config |"
    assert strip_prefixes("web-1  |") == ("web-1", "")


def test_rich_boxed_traceback_reads_as_python_prints_it():
    """kohya_ss's accelerate launcher, as pasted (tests/fixtures/corpus/nccl/039.log)."""
    peeler = Peeler()
    box = ["╭─────────────────────────────── Traceback (most recent call last) ─────────╮",
           "│ c:\\python\\lib\\runpy.py:196 in _run_module_as_main                          │",
           "│ ❱ 1013 │   │   │   │   raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")   │",
           "│   1014 │   │   │   if pg_options is not None:                                                    │",
           "╰──────────────────────────────────────────────────────────────────────────╯"]
    texts = [line.text for n, raw in enumerate(box) for line in peeler.peel(n, raw)]
    assert texts == ["Traceback (most recent call last):", '  File "c:\\python\\lib\\runpy.py", line 196, in _run_module_as_main',
                     "    raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")", "", ""]


@pytest.mark.parametrize("box, frame", [
    # a Colab paste cut inside the box (camenduru/text-generation-webui-colab#22): the path runs on
    (["│ /usr/local/lib/python3.10/dist-packages/transformers/models/auto/configurati │",
      "│ on_auto.py:947 in from_pretrained                                            │"],
     '  File "/usr/local/lib/python3.10/dist-packages/transformers/models/auto/configuration_auto.py", '
     "line 947, in from_pretrained"),
    # a wide box (bitsandbytes-foundation/bitsandbytes#781): the function's name runs on
    (["│ /home/y/.local/lib/python3.10/site-packages/transformers/configuration_utils.py:261 in           │",
      "│ __getattribute__                                                                                 │"],
     '  File "/home/y/.local/lib/python3.10/site-packages/transformers/configuration_utils.py", '
     "line 261, in __getattribute__"),
])
def test_a_frame_header_rich_wrapped_at_the_box_width_is_joined(box, frame):
    peeler = Peeler()
    texts = [line.text for n, raw in enumerate(box) for line in peeler.peel(n, raw)]
    assert texts == ["", frame]
    assert not peeler.pending


def test_code_fences_end_a_block_and_inline_fences_keep_their_text():
    peeler = Peeler()
    assert peeler.peel(1, "```python")[0].text == ""
    assert peeler.peel(2, "```The memory capacity is unbalanced. Some GPUs may be occupied by other processes.```")[0].text \
        == "The memory capacity is unbalanced. Some GPUs may be occupied by other processes."


def test_a_lone_backtick_of_a_code_span_opened_or_closed_on_another_line_is_peeled():
    """A comment that opens inline code before a Ray-prefixed line (OpenRLHF/OpenRLHF#265) and
    closes it lines later: the prefix is still peeled; a line with a whole span keeps its ticks."""
    peeler = Peeler()
    line = ("`(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out "
            "after 1800s while trying to connect to (172.17.0.2, 44737).")
    [peeled] = peeler.peel(1, line)
    assert peeled.stream == "RayWorkerVllm pid=207931, ip=10.0.1.75" and peeled.text.startswith("[c10d] The client")
    assert peeler.peel(2, "RuntimeError: NCCL error: unhandled system error`")[0].text.endswith("system error")
    kept = "ValueError: pass `trust_remote_code=True` to load it"
    assert peeler.peel(3, kept)[0].text == kept


def test_a_traceback_whose_newlines_were_lost_is_split_back():
    text = ('Traceback (most recent call last): File "/x/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility '
            'assert numerator % denominator == 0 AssertionError: 16 is not divisible by 6')
    assert split_collapsed(text) == ["Traceback (most recent call last):",
                                     '  File "/x/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility',
                                     "    assert numerator % denominator == 0", "AssertionError: 16 is not divisible by 6"]


def test_module_names_from_printed_paths():
    assert module_of("/usr/local/lib/python3.11/site-packages/sglang/srt/models/llama.py") == "sglang.srt.models.llama"
    assert module_of("/sgl-workspace/sglang/python/sglang/srt/utils/__init__.py") == "sglang.srt.utils"
    assert module_of("/opt/venv/lib/python3.12/site-packages/mlx_llm_server/app.py") == "mlx_llm_server.app"
    assert module_of("script.py") == "script"


def test_rsyslogs_escaped_colour_codes_and_carriage_returns_are_peeled():
    """rsyslog writes control characters as #ooo: ESC as #033, CR as #015."""
    from enrich.logs import findings
    line = ("#033[1;36m(VllmWorker TP2 pid=415)#033[0;0m ERROR 08-31 04:18:45 [multiproc_executor.py:559] "
            "RuntimeError: CUDA error: an illegal memory access was encountered#015\n")
    [finding] = findings(io.StringIO(line))
    assert finding.id == "torch/cuda-illegal-address" and "#015" not in finding.message
    assert finding.streams == ["VllmWorker TP2 pid=415"]


def test_colour_codes_whose_escape_is_written_as_its_name_are_peeled():
    """A pager or a web page may show ESC as the letters "ESC"; under a collector's own prefix too."""
    from enrich.logs import findings
    line = ("ESC[36m(RayWorkerWrapper pid=37007)ESC[0m ERROR 06-12 15:44:15 worker_base.py:148] "
            "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    for text in (line, "\x1b[32mvllm-7d9f8-abcde\x1b[0m \x1b[34mvllm\x1b[0m " + line):
        [finding] = findings(io.StringIO(text))
        assert finding.id == "torch/cuda-illegal-address" and "ESC" not in finding.message


# a terminal 64 columns wide: the rows of a long line are cut at exactly that width
WIDTH = 64
LONG = ("what():  [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
        "Timeout(ms)=1800000) ran for 1804582 milliseconds before timing out.")
NOTE = ("[E ProcessGroupNCCL.cpp:325] Some NCCL operations have failed or timed out. Due to the asynchronous "
        "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")


def rows(line: str) -> list[str]:
    return [line[i:i + WIDTH] for i in range(0, len(line), WIDTH)]


def test_lines_a_terminal_wrapped_at_its_width_are_joined():
    pasted = ["```", *rows(NOTE), "terminate called after throwing an instance of 'c10::Error'", *rows(LONG), "```"]
    joined = ["".join(pasted[start:end]) for start, end in wrapped_rows(pasted)]
    assert joined == ["```", NOTE, "terminate called after throwing an instance of 'c10::Error'", LONG, "```"]


def test_lines_cut_at_the_width_and_tables_are_not_joined():
    """A log cut at the width starts its next record as it started this one; a table's rows and
    rules are of one width by design; prose of no common width is left as it is; a record
    repeated is one line however often it comes."""
    frames = [f"frame #{n}: c10d::ProcessGroupNCCL::watchdogHandler() + 0x890 (0x7f5a4441d7d0 in /home/u/lib/libtorch_cuda.so)"[:WIDTH]
              for n in range(4)]
    table = ["| GPU  Name        Persistence-M | Bus-Id        Disp.A | Volatile |"] * 4
    prose = ["a line of prose that is long enough to be over the width", "and another one"]
    repeated = ["ggml_metal_graph_compute: command buffer 3 failed with status 5 (insufficient memory)"] * 4
    for pasted in (frames, table, prose, repeated):
        assert wrapped_rows(pasted) == [(n, n + 1) for n in range(len(pasted))]
