"""Messages as they really end up in logs: cut, continued, after a bare type, embedded in a log
line, without their type; native failures; one finding per root cause; notes read back."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from enrich.logs import findings

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"
CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus"


def read(text: str, all: bool = False):
    return findings(io.StringIO(text), all=all)


def test_continuation_lines_keep_their_tab():
    """torch's load_state_dict message is one header line and tab-indented detail lines."""
    code = "import torch.nn as nn; nn.Linear(8, 4).load_state_dict(nn.Linear(16, 4).state_dict())"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={"ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin"})
    assert "\tsize mismatch for weight" in child.stderr and "[torch/" not in child.stderr
    for text in (child.stderr, child.stderr.expandtabs(4), child.stderr.expandtabs(8)):   # tabs lost in a paste
        [finding] = read(text)
        assert finding.id == "torch/state-dict-size-mismatch" and not finding.partial
        assert finding.summary.startswith("Linear.weight: the checkpoint has shape [4, 16]")


def test_message_on_the_line_after_a_bare_type():
    text = ("ERROR 02-23 02:23:19 [core.py:948] RuntimeError:\n"
            "ERROR 02-23 02:23:19 [core.py:948] CUDA error: an illegal memory access was encountered\n")
    [finding] = read(text)
    assert finding.id == "torch/cuda-illegal-address" and finding.message.startswith("CUDA error: an illegal")


def test_message_embedded_in_a_log_line_before_its_traceback():
    """vLLM V0's worker line (the message of vllm-project/vllm#9329); the traceback is cut."""
    text = ("(VllmWorkerProcess pid=4528) ERROR 10-12 07:55:46 multiproc_worker_utils.py:233] Exception in worker "
            "VllmWorkerProcess while processing method init_device: NCCL error: unhandled cuda error "
            "(run with NCCL_DEBUG=INFO for details), Traceback (most recent call last):\n")
    [finding] = read(text)
    assert finding.id == "torch/nccl-cuda-error" and finding.partial


@pytest.mark.parametrize("line", [
    # vLLM's model runner wraps the error: f"Error in model execution (input dumped to {filename}): {err}"
    "RuntimeError: Error in model execution (input dumped to /tmp/err_execute_model_input_20240621-034535.pkl): "
    "CUDA error: an illegal memory access was encountered",
    # an application's own log line around the message
    "2025-06-11 01:51:09,123 ERROR serving.worker: request 42 failed: CUDA error: an illegal memory access was encountered",
])
def test_message_embedded_after_a_lead_in(line):
    [finding] = read(line + "\n")
    assert finding.id == "torch/cuda-illegal-address"


def test_a_message_after_the_library_part_that_logged_it():
    """c10d tags its log lines "[c10d] "; the message after the tag is the error."""
    [finding] = read("[E socket.cpp:922] [c10d] The client socket has timed out after 1800s while trying to "
                     "connect to (172.17.0.2, 44737).\n")
    assert finding.id == "torch/tcpstore-connect-timeout" and finding.values["port"] == "44737"


def test_a_wrapper_whose_message_is_another_exceptions_repr():
    """gradio re-raises the error's repr as its own message (deepbeepmeep/Wan2GP#2228), whole or cut."""
    message = ("OutOfMemoryError('CUDA out of memory. Tried to allocate 2.37 GiB. GPU 0 has a total capacity of "
               "31.33 GiB of which 1.87 GiB is free.')")
    for cut in (len(message), 80):
        [finding] = read(f"gradio.exceptions.Error: {message[:cut]}\n")
        assert finding.id == "torch/cuda-oom"


def test_a_message_tagged_by_rocm_is_not_read_past_its_tag():
    assert [f.id for f in read("RuntimeError: [HIP] CUDA error: device-side assert triggered\n")] == [None]


def test_a_log_line_hard_wrapped_is_its_error_beside_another_printed_one():
    """Two ranks' c10d lines, each wrapped at a paste's width (OpenRLHF/OpenRLHF#265): the joined
    socket line is a root cause printed, not a quote that loses to the watchdog's line."""
    text = ("(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out "
            "after 1800s while trying to connect to (172.17.0.2\n, 44737).\n"
            "(ActorModelRayActor pid=207260, ip=10.0.1.75) [E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=3856, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
            "Timeout(ms)=1800000) ran for 1800268 milliseconds before timing out.\n")
    assert [f.id for f in read(text)] == ["torch/tcpstore-connect-timeout", "torch/nccl-watchdog-timeout"]
    quoting = ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
               "ValueError: expected reply 'The client socket has timed out after 60s while trying to connect to "
               "(1.2.3.4, 5)' to be parsed\n")          # a printed error that quotes another is not that error
    assert [f.id for f in read(quoting)] == ["torch/cuda-illegal-address"]


def test_a_hub_miss_raised_in_huggingface_hubs_own_frames(tmp_path):
    """hf_hub_download offline, for a repo not in the cache: the traceback ends in
    huggingface_hub's frames, which are the entry's own raise sites."""
    code = "from huggingface_hub import hf_hub_download; hf_hub_download('org/never-downloaded', 'config.json')"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={"ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1",
                                "HF_HOME": str(tmp_path)})
    assert "huggingface_hub/file_download.py" in child.stderr and "[transformers/" not in child.stderr
    [finding] = read(child.stderr)
    assert finding.id == "transformers/hub-unreachable"


def test_tritons_launcher_reports_a_device_assert_in_its_words():
    """Triton's launcher raises CUDA's error string after its own lead-in."""
    [finding] = read("RuntimeError: Triton Error [CUDA]: device-side assert triggered\n")
    assert finding.id == "torch/cuda-device-assert"
    [finding] = read("# RuntimeError: CUDA Error: Device-Side Assert Triggered\n")      # a title in title case
    assert finding.id == "torch/cuda-device-assert"
    assert [f.id for f in read("RuntimeError: XPU error: device-side assert triggered\n")] == [None]



@pytest.mark.parametrize("text, entry", [
    ("OSError: [Errno 48] Address already in use\n", "process/port-in-use"),                # macOS
    ("OSError: [WinError 10048] Only one usage of each socket address (protocol/network address/port) "
     "is normally permitted\n", "process/port-in-use"),                                      # Windows
    ("# [Bug]: ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')\n", None),     # pyzmq's socket
])
def test_a_port_in_use_as_each_system_words_it(text, entry):
    assert [f.id for f in read(text) if f.id] == ([entry] if entry else [])

@pytest.mark.parametrize("text", [
    "RuntimeError: Triton Error [CUDA]: no kernel image is available for execution on the device\n",
    "a/b · issue #2 · closed\n# Torch 2.13.0: RuntimeError: Triton Error [CUDA]: no kernel image is available for "
    "execution on the device\n",
])
def test_a_kernel_image_tritons_launcher_refuses_is_its_own(text):
    """Triton compiled that image for this GPU: not a library built for other GPUs (the entry's
    ``not_after``); the same words from CUDA's check, and Triton's other CUDA errors, are read as before."""
    assert not [f.id for f in read(text) if f.id]
    [finding] = read("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert finding.id == "torch/cuda-no-kernel-image"
    [finding] = read("RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered\n")
    assert finding.id == "torch/cuda-illegal-address"


def test_message_printed_without_its_type():
    """sglang-jax logs the KV pool message as a plain log line (tests/fixtures/corpus/sglang/025.log)."""
    found = read((CORPUS / "sglang" / "025.log").read_text())
    assert [f.id for f in found if f.root_cause] == ["sglang/kv-pool-out-of-memory"]


def test_messages_cut_short_are_identified_and_never_as_another_entry():
    """Every catalog sample (one-line, 40+ characters) cut at a word near 70% of its length, as a
    paste or an index excerpt cuts it: most are still identified, none as another entry."""
    from enrich.catalog import get_catalog
    identified, cases = 0, 0
    for entry in get_catalog().entries.values():
        sample = next((s.message for s in entry.samples if s.message and len(s.message) >= 40), None)
        if sample is None or "\n" in sample[:int(len(sample) * 0.7)]:
            continue
        cut = sample[:int(len(sample) * 0.7)].rsplit(" ", 1)[0]
        ids = {f.id for f in read(f"{entry.exceptions[0]}: {cut}\n")} - {None}
        assert ids <= {entry.id}, (entry.id, cut, ids)
        cases += 1
        identified += entry.id in ids
    assert cases >= 50 and identified >= 0.85 * cases, (identified, cases)


def test_a_message_cut_to_its_first_words():
    """"RuntimeError: CUDA out of memory", the way issue titles print the allocator's error; and
    every catalog sample cut at its first word boundary after 16 characters is its own entry's,
    one that words the same start, or nothing."""
    [finding] = read("RuntimeError: CUDA out of memory\n")
    assert finding.id == "torch/cuda-oom" and finding.partial
    assert read("RuntimeError: The server socket\n")[0].id is None      # under 20 characters, three words
    from enrich.catalog import get_catalog
    entries = get_catalog().entries.values()
    samples = [(e.id, s.message.strip()) for e in entries for s in e.samples if s.message]
    for entry in entries:
        for sample in (s.message.strip() for s in entry.samples if s.message):
            end = sample.find(" ", 16)
            if end < 0 or end > 24:
                continue
            cut = sample[:end]
            ids = {f.id for f in read(f"{entry.exceptions[0]}: {cut}\n")} - {None}
            assert ids <= {other for other, text in samples if text.startswith(cut)}, (entry.id, cut, ids)


def test_a_message_that_opens_with_one_of_several_words_quoted_without_its_full_stop():
    """sglang's KV pool says "Prefill out of", "Decode out of" or "Out of memory. Try to lower your
    batch size."; a paste that drops the full stop is still that message, partially."""
    [finding] = read("there will be a error:\n```\nDecode out of memory. Try to lower your batch size\n```\n")
    assert finding.id == "sglang/kv-pool-out-of-memory" and finding.partial


def test_a_wrapper_that_announces_the_error_on_its_next_line_is_folded_into_it():
    """torch.compile's BackendCompilerFailed ends "backend='inductor' raised:" and prints the error
    it carries as the next line, as an exception line of its own: one finding, that error's."""
    text = ("  File \"/torch/_inductor/codecache.py\", line 166, in get_system\n"
            "    from triton.compiler.compiler import triton_key\n"
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            "LoweringException: ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' "
            "(/envs/sam/lib/python3.10/site-packages/triton/compiler/compiler.py)\n")
    [finding] = read(text)
    assert finding.id == "torch/inductor-triton-mismatch" and finding.line == 4
    assert [(f.line, f.root_cause) for f in read(text, all=True)] == [(1, False), (4, True)]


def test_a_message_in_parentheses_at_a_titles_end():
    """A title that ends with the error in parentheses, after the writer's account of it."""
    [finding] = read("# [Bug] test_verl_engine.py fails when CUDA_VISIBLE_DEVICES is not sequential from 0 "
                     "(invalid device ordinal)\n")
    assert finding.id == "torch/cuda-invalid-device"
    assert read("# Server crashes on long prompts (see the logs below)\n") == []


def test_tritons_out_of_resources_printed_without_its_module():
    """Triton's OutOfResources is named neither ...Error nor ...Exception; printed bare and cut,
    its line is still an exception's."""
    [finding] = read("OutOfResources: out of resource: shared memory, Required:\n")
    assert finding.exception == "OutOfResources" and finding.id == "triton/oor-shared-memory" and finding.partial


def test_tritons_out_of_resources_retold_as_the_exception_and_the_resource():
    """A note's "`OutOfResources: shared memory`" (no numbers) is that error; the resource's name
    alone is not."""
    assert [f.id for f in read("- `triton.runtime.errors.OutOfResources: shared memory`\n")] == ["triton/oor-shared-memory"]
    assert read("Raising the container's `shared memory` did not help\n") == []


def test_tritons_name_error_as_the_compile_errors_body_prints_it():
    """Triton's code generator raises NameError("<name> is not defined"), printed under the caret
    as its repr; Python's own NameError says "name 'x' is not defined"."""
    kernel = "            tmp0 = tl.load(in_ptr0 + r0_index)\n                                     ^\n"
    assert "triton/compilation-error" in [f.id for f in read(kernel + "NameError('R0_BLOCK is not defined')\n")]
    assert not any(f.id for f in read(kernel + "NameError(\"name 'R0_BLOCK' is not defined\")\n"))


def test_vllms_startup_memory_check_retyped_without_its_spaces():
    """A CJK input method's paste may drop the spaces before "GiB" and the parenthesis."""
    said = "调用api接口解析时就报错：Free memory on device (0.75/14.57GiB) on startup is less than desired GPU memory utilization(0.4,5.83GiB).\n"
    [finding] = read(said)
    assert finding.id == "vllm/startup-free-memory" and finding.values["requested_gib"] == "5.83"


@pytest.mark.parametrize("said, entry", [
    # InternLM/lmdeploy#1130: no space after the colons
    ("RuntimeError:CUDA error:out of memory\n", "torch/cuda-error-oom"),
    # ToTheBeginning/PuLID#162: none before the operator
    ("# expected mat1 and mat2 to have the same dtype, but got: float!= c10::Half\n", "torch/matmul-dtype-mismatch"),
    # jackaduma/CycleGAN-VC2#10: "to" run into the next word, and a CJK input method's full stops
    ("# RuntimeError： Attempting todeserialize object on a CUDA device but torch。cuda.is_available() is False。\n",
     "torch/load-cuda-on-cpu"),
])
def test_a_message_retyped_with_a_space_lost(said, entry):
    assert [f.id for f in read(said)] == [entry]


def test_torchs_no_driver_assert_retyped_with_its_spaces_changed():
    """Retyped by hand: no space after the full stop, two before "that"."""
    said = ("AssertionError\uff1aFound no NVIDIA driver on your system.Please check  that you have an NVIDIA GPU "
            "and installed a driver from...\n")
    assert [f.id for f in read(said)] == ["torch/cuda-no-driver"]


def test_pytests_report_says_where_its_error_was_raised(tmp_path):
    """pytest's long report prints no "File ..." frames; its "path.py:LINE: ExcType" line after
    the E lines is the raise frame (a real pytest run), and a raise frame names the entry:
    Triton's front end asserting while a kernel is compiled."""
    from enrich.logs.reader import parse_text
    (tmp_path / "checks.py").write_text("def same_dtype(a, b):\n    assert a == b, 'lhs and rhs differ'\n")
    (tmp_path / "test_it.py").write_text("from checks import same_dtype\n\ndef test_it():\n    same_dtype(1, 2)\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_it.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env={"ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin"})
    assert "checks.py:2: AssertionError" in run.stdout, run.stdout
    error = next(e for e in parse_text(run.stdout) if e.type == "AssertionError")   # then the summary's line
    assert (error.frames[-1].module, error.frames[-1].lineno) == ("checks", 2)
    report = '''>       assert lhs.dtype == rhs.dtype, "lhs and rhs must have the same dtype!"
E       AssertionError: lhs and rhs must have the same dtype!

../../venvs/research/lib/python3.10/site-packages/triton/language/semantic.py:1009: AssertionError
'''
    [finding] = read(report)
    assert finding.id == "triton/compilation-error" and finding.site == "triton.language.semantic:"
    assert read(report.replace(": AssertionError\n", ": ValueError\n"))[0].id is None   # another error's place
    far = report.replace("\n\n", "\n" + "collected line\n" * 10)     # another test's report, far below
    assert read(far)[0].id is None


@pytest.mark.parametrize("text, entry", [
    ("# Rccl error, unhandled system error\n", "torch/nccl-system-error"),
    ("# RCCL test fails with 'unhandled cuda error'\n", "torch/nccl-cuda-error"),
    ("OSError: (External) NCCL error(2), unhandled system error.\n", "torch/nccl-system-error"),
])
def test_nccls_words_for_its_result_codes_in_any_frame(text, entry):
    """NCCL's text for ncclSystemError and ncclUnhandledCudaError, framed by RCCL, Paddle or a
    title, is that error."""
    assert [f.id for f in read(text)] == [entry]


@pytest.mark.parametrize("text, entry", [
    ("# [Bug]: ncclSystemError when use two gpus\n", "torch/nccl-system-error"),
    ("# ncclRemoteError\n", "torch/nccl-remote-error"),
    ("the job died with ncclUnhandledCudaError after an hour\n", "torch/nccl-cuda-error"),
    ("          return ncclSystemError;\n", None),
    ("  ncclSystemError            =  2,\n", None),
    ("if (res == ncclRemoteError) retry();\n", None),
    ("codes: ncclSuccess, ncclUnhandledCudaError, ncclSystemError, ncclInternalError\n", None),
])
def test_a_result_codes_name_alone(text, entry):
    """A title or sentence naming only NCCL's result code is that error; the name in code or in
    a header's list of codes is not."""
    assert [f.id for f in read(text)] == ([entry] if entry else [])


def test_paddles_nccl_error_in_its_own_traceback():
    """PaddlePaddle raises NCCL's failures as OSError ("(External) NCCL error(2), ..."), from its
    own frames."""
    paddle = ('  File "/usr/local/lib/python3.8/dist-packages/paddle/distributed/collective.py", line 328, in barrier\n'
              "    task = group.process_group.barrier()\n"
              "OSError: (External) NCCL error(2), unhandled system error.\n")
    assert [f.id for f in read(paddle)] == ["torch/nccl-system-error"]


def test_torch_1_tcpstores_connect_timeout():
    """torch 1.x's TCPStore client said only "connect() timed out" with the timeout it had."""
    error = "RuntimeError: connect() timed out. Original timeout was 60000 ms.\n"
    assert [f.id for f in read(error)] == ["torch/tcpstore-connect-timeout"]


def test_an_ncclcheck_line_after_the_warn_it_reports():
    """nccl-tests' and applications' NCCLCHECK line reports the failure the WARN above it told
    (NVIDIA/nccl#111): a WARN an entry knows stays the root cause; one no entry knows is the
    detail of the result code the NCCLCHECK line names."""
    text = ("node1 [0] include/socket.h:185 WARN Bootstrap : no socket interface found\n"
            "NCCL failure all_reduce.cu:110 'internal error'\n")
    assert [(f.line, f.id, f.root_cause) for f in read(text, all=True)] == [
        (1, "torch/nccl-no-socket-interface", True), (2, "torch/nccl-internal-error", False)]
    text = ("node1 [0] include/socket.h:185 WARN Call to connect failed : Connection refused\n"
            "NCCL failure all_reduce.cu:110 'unhandled system error'\n")
    assert [(f.line, f.id, f.root_cause) for f in read(text, all=True)] == [
        (1, None, False), (2, "torch/nccl-system-error", True)]
    [alone] = read(text.splitlines(keepends=True)[1])
    assert alone.id == "torch/nccl-system-error" and alone.root_cause
    unknown = "[0] bootstrap.cc:77 NCCL WARN some thing unknown went sideways here\n"
    for warns in ("node1:100:200 " + text.splitlines(keepends=True)[0] + unknown,   # a thread's prefix, two WARNs
                  "[0] include/socket.h:185 NCCL WARN Bootstrap : no socket interface found\n" + unknown):
        found = read(warns + "NCCL failure all_reduce.cu:110 'unhandled system error'\n", all=True)
        assert [f.id for f in found if f.root_cause] == [found[0].id or "torch/nccl-system-error"]


def test_a_title_quoting_a_message_without_its_end():
    """The title of vllm-project/vllm#14574."""
    text = '# [CI failed]: V1 Test Failed due to "No available memory for the cache blocks" in GitHub Actions\n'
    [finding] = read(text)
    assert finding.id == "vllm/no-kv-cache-memory" and finding.kind == "mention"


def test_message_cut_mid_list():
    """mlx's unexpected-parameters list, cut by the poster (tests/fixtures/corpus/mlx)."""
    text = ("ValueError: Received 122 parameters not in model: \nlanguage_model.lm_head.biases,\n"
            "language_model.model.layers.0.mlp.down_proj.biases,\nlanguage_model.model.")
    [finding] = read(text)
    assert finding.id and finding.id.startswith("mlx/load-weights")


def test_a_panel_of_text_keeps_its_lines_a_traceback_box_its_frames():
    """Modal's "Error" panel holds the message (dottxt-ai/outlines#1024); rich's traceback box holds
    frames and source, whose other lines are code."""
    panel = ("╭─ Error ─────────────────────────╮\n"
             "│ Image build failed with the exception:          │\n"
             "│ OSError('You are trying to access a gated repo.\\nMake sure to have access to it at │\n"
             "╰─────────────────────────────────╯\n")
    assert [f.id for f in read(panel)] == ["transformers/repo-not-found"]
    boxed = panel.replace("╭─ Error ─", "╭─ Traceback (most recent call last) ─")
    assert "transformers/repo-not-found" not in [f.id for f in read(boxed)]


def test_a_traceback_cut_to_nothing_is_not_the_root_beside_an_identified_error():
    """vllm-project/vllm#17813: the worker's NCCL error, quoted by the engine's wrapper, then the
    CLI's own traceback cut before any message: the cut one says nothing and is not the root."""
    text = ('  File "/vllm/v1/executor/multiproc_executor.py", line 185, in collective_rpc\n'
            "    raise RuntimeError(\n"
            "RuntimeError: Worker failed with error 'NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO "
            "for details)', please check the stack trace above for the root cause\n"
            "Traceback (most recent call last):\n"
            '  File "/bin/vllm", line 8, in <module>\n'
            "    sys.exit(main())\n")
    assert [f.id for f in read(text)] == ["torch/nccl-cuda-error"]


def test_a_list_printed_one_name_per_line_is_read_whole():
    """mlx's unexpected names sort a layer's biases and scales before its weight: only the whole
    list says whether every one is a quantization tensor (jundot/omlx#663)."""
    names = [f"language_model.model.layers.0.switch_mlp.down_proj.{n}," for n in ("biases", "scales", "weight")]
    head = "2026-04-08 11:17:52,064 - omlx.server - WARNING - POST /load → 500: Received 270 parameters not in model:\n"
    assert [f.id for f in read("Log:\n" + head + "\n".join(names) + "\nlanguage_model.model.la\n")] == \
        ["mlx/load-weights-unexpected"]
    quantized = "\n".join(n.replace("weight", "scales") for n in names)
    assert [f.id for f in read("Log:\n" + head + quantized + "\nlanguage_model.model.la\n")] == \
        ["mlx/load-weights-quantized-unexpected"]


def test_a_list_the_poster_elided_does_not_say_every_name_is_a_quantization_tensor():
    """ARahim3/mlx-tune#4: one biases name, then "...." for the other 319: the general entry."""
    text = ("raise ValueError(\nValueError: Received 320 parameters not in model:\n"
            "model.layers.0.self_attn.k_proj.linear.biases,\n....\n).\n")
    assert [f.id for f in read(text)] == ["mlx/load-weights-unexpected"]
    assert [f.id for f in read(text.replace("....\n", ""))] == ["mlx/load-weights-quantized-unexpected"]


def test_a_message_hard_wrapped_over_three_lines():
    """jundot/omlx#2347: an app's error box wraps mlx's shape message over three lines."""
    text = ("Model 'GLM-5.2-oQ3.5e-mtp' is unavailable after a previous\nload failure: Expected shape (160, 1536) "
            "but received shape\n(160, 960) for parameter\nmodel.layers.0.self_attn.indexer.wk_weights_proj.weight.\n")
    [finding] = read(text)
    assert finding.id == "mlx/load-weights-shape"
    assert finding.values["param"] == "model.layers.0.self_attn.indexer.wk_weights_proj.weight"


def test_a_value_the_cut_left_out_is_not_shown_empty():
    """mlx's list cut before its first name: the fix that quotes the first name is left out
    rather than shown with nothing in it."""
    [finding] = read("Error: Failed to load model from /m:\nReceived 126 parameters not in model:\n")
    assert finding.id == "mlx/load-weights-unexpected"
    assert "first" not in finding.values
    assert finding.fixes and not any("first:" in fix for fix in finding.fixes)


@pytest.mark.parametrize("line, kind", [
    ("[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
     "for 600020 milliseconds before timing out.", "log"),
    ("*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused", "exception"),
    ("terminate called after throwing an instance of 'c10::DistBackendError'\n"
     "  what():  [PG ID 2 PG GUID 3 Rank 0] Process group watchdog thread terminated with exception: CUDA error: "
     "an illegal memory access was encountered", "exception"),
    ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution "
     "failed: Internal Error (0000000e:Internal Error)", "exception"),
    # the older libc++abi's wording, as macOS 12 and MoltenVK's crashes print it
    ("libc++abi.dylib: terminating with uncaught exception of type std::__1::system_error: mutex lock failed: "
     "Invalid argument", "exception"),
])
def test_native_failure_lines(line, kind):
    [finding] = read(line + "\n")
    assert finding.kind == kind and finding.message


def test_nccl_return_codes_fold_into_the_warning_that_explains_them():
    text = (LOGS / "nccl-02.log").read_text()
    roots = read(text)
    assert all(f.exception != "NCCL" for f in roots)
    assert any(f.exception == "NCCL" and not f.root_cause for f in read(text, all=True))


def test_an_nccl_thread_unwinding_is_one_failure_per_thread():
    """nccl-03.log: each of two threads warns once at the failure and again on the way up."""
    roots = read((LOGS / "nccl-03.log").read_text())
    assert [(f.streams, f.message.split(":")[0]) for f in roots] == [
        (["ubuntu:39964:40075"], "socketStartConnect"), (["ubuntu:39964:40044"], "socketProgress")]


def test_a_continuation_line_pasted_alone_is_its_message_cut_short():
    """jaxony/ShuffleNet#14: only torch's detail line, cut before the shapes."""
    [finding] = read("size mismatch for stage4.ShuffleUnit_Stage4_0.depthwise_conv3x3.weight\n")
    assert finding.id == "torch/state-dict-size-mismatch" and finding.partial


def test_a_message_cut_short_in_a_shell_comment():
    """mzau/mlx-knife#53: a tool's output shown as '# ' comments in a shell fence, the list cut."""
    found = read("```bash\nmlxk run gemma-4-e4b-it-4bit \"what is 2+2?\"\n# Error: Failed to load model from /m:\n"
                 "# Received 126 parameters not in model:\n# language_model.model.layers.24.self_attn.k_norm.weight, ...\n```\n")
    assert [(f.id, f.partial) for f in found] == [("mlx/load-weights-unexpected", True)]


def test_a_line_a_progress_bar_was_redrawn_over():
    """huggingface/transformers#44054: the bar's carriage returns lost, a crash between its redraws."""
    [finding] = read("Download complete: : 0.00B [00:00, ?B/s]              Fatal Python error: Segmentation fault"
                     "                         | 0/6 [00:00<?, ?it/s]\n")
    assert finding.id == "process/segfault"


def test_tensorflows_failed_op_logged_as_a_warning_is_an_error():
    """tensorflow/tensorflow#51760: TensorFlow logs the op's NCCL status at W, then raises it."""
    line = ("2021-08-31 15:14:17.616013: W tensorflow/core/framework/op_kernel.cc:1767] OP_REQUIRES failed at "
            "nccl_ops.cc:104 : Internal: NCCL: unhandled system error. Set NCCL_DEBUG=WARN for detail.\n")
    assert [f.id for f in read(line)] == ["torch/nccl-system-error"]
    assert read(line.replace("OP_REQUIRES failed at", "Retrying after")) == []


def test_a_quote_with_a_bare_error_lead_late_in_a_long_line():
    """ml-explore/mlx-swift-examples#53: the quote opens with "Error: " past the line's first words."""
    prose = " ".join(["It works in Python with this small model but not in MLX-Swift."] * 6)
    [finding] = read(f'{prose} "Error: unhandledKeys(base: "Embedding", keys: ["biases", "scales"])". So ...\n')
    assert finding.id == "mlx/load-weights-quantized-unexpected"


def test_a_message_retyped_with_a_word_misspelt_is_partial():
    """pytorch/pytorch#23363: a retyped line, one letter short; torch_npu's WorkHCCL is not a misspelt WorkNCCL."""
    [finding] = read("fail to new train...e= NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, "
                     "unhanled system error\n")
    assert (finding.id, finding.partial) == ("torch/nccl-system-error", True)
    hccl = read("[rank1]:[E324 13:00:25.428029551 compiler_depend.ts:574] [Rank 1] Watchdog caught collective "
                "operation timeout: WorkHCCL(SeqNum=196, OpType=ALLREDUCE, Timeout(ms)=3600000) ran for 3600185 "
                "milliseconds before timing out.\n")
    assert [f.id for f in hccl] == [None]


def test_a_message_retyped_with_words_in_another_form_is_partial():
    """alipay/PainlessInferenceAcceleration#35: Triton's message retyped after its class, "Hardware
    limitation" for "Hardware limit". A word swapped for another names another error: MPI's
    missing backend is not NCCL's."""
    [finding] = read("When I run it I get the error: `triton.runtime.errors.OutOfResources: out of resource: shared "
                     "memory, Required: 163842, Hardware limitation: 101376. reducing the block size or `num_stages` "
                     "may help`.\n")
    assert (finding.id, finding.partial) == ("triton/oor-shared-memory", True)
    mpi = read("RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you build "
               "PyTorch from source on a host that has MPI installed.\n")
    assert [f.id for f in mpi] == [None]


def test_a_title_quoting_the_assert_that_failed():
    """sgl-project/sglang#3436: the title is ensure_divisibility's assert; the scheduler's log shows sglang.
    The same statement in a code block is what a change is about, not what failed."""
    title = "# How to solve assert numerator % denominator == 0\n\n"
    [finding] = read(title + "[2025-02-09 10:00:00 TP6] Scheduler hit an exception: Traceback (most recent call last):\n")
    assert (finding.id, finding.partial) == ("sglang/not-divisible", True)
    code = "```python\ndef ensure_divisibility(numerator, denominator):\n    assert numerator % denominator == 0\n```\n"
    assert read(code) == []


def test_a_title_retyped_with_a_capital_reads_the_alternatives_last_word():
    """Dao-AILab/flash-attention#121: CUDA's words, capitalised, are the message's first alternative:
    its last word ("encountered") counts among the words it needs."""
    [finding] = read("# An illegal memory access was encountered\n\nCould you run it with CUDA_LAUNCH_BLOCKING=1?\n")
    assert finding.id == "torch/cuda-illegal-address"


def test_a_raise_line_retyped_in_lower_case_and_cut():
    """bentrevett/pytorch-sentiment-analysis#47: torch 1.x's raise line, lower-cased, as the only clue."""
    [finding] = read('"cannot re-initialize cuda in forked subprocess. " + msg)\n')
    assert finding.id == "torch/cuda-forked-subprocess" and finding.partial


def test_a_title_completes_an_exception_cut_before_its_cause():
    """pytorch/pytorch#164683: a CompilationError cut before the caret; the title quotes its cause."""
    found = read((CORPUS / "triton" / "023.log").read_text(), all=True)
    roots = [f.id for f in found if f.root_cause]
    assert roots == ["triton/incompatible-operand-types"]
    assert any(f.id == "triton/compilation-error" and not f.root_cause for f in found)


def test_the_cause_printed_inside_a_cut_exception_is_the_root():
    """kijai/ComfyUI-WanVideoWrapper#1007: an inductor CompilationError "at 1:0:", its cause printed
    as a repr below the caret, and the app's unprefixed copy of the same error: read with the lines
    after "at 1:0:", the CompilationError is the fp8 error itself."""
    found = read((CORPUS / "triton" / "047.log").read_text(), all=True)
    assert [f.id for f in found if f.root_cause] == ["triton/fp8e4nv-unsupported"]
    assert {f.id for f in found if f.exception.endswith("CompilationError")} == {"triton/fp8e4nv-unsupported"}


def test_a_quote_cut_where_the_printed_message_goes_on_is_that_message():
    """ollama/ollama#17902: prose quotes "[METAL] Command buffer execution failed" and the log
    prints it whole with a reason no entry explains: the quote is not the out-of-memory entry."""
    assert not [f.id for f in read((CORPUS / "mlx" / "046.log").read_text(), all=True) if f.id]


def test_a_title_that_goes_on_after_the_message_start():
    [finding] = read("# [Bug]: Buffer overflow when allocating memory error on Qwen3.5-122B-A10B-GPTQ-Int4 and NVFP4\n")
    assert finding.id == "flashinfer/workspace-overflow" and finding.partial


def test_nccl_own_warning_for_a_missing_interface():
    line = "node1:12:34 [0] misc/socket.cc:500 NCCL WARN Bootstrap : no socket interface found\n"
    [finding] = read(line)
    assert finding.id == "torch/nccl-no-socket-interface" and finding.exception == "NCCL WARN"


def test_the_kernel_assertion_line_names_its_check():
    line = ("/opt/conda/conda-bld/pytorch_1724789143830/work/aten/src/ATen/native/cuda/Loss.cu:95: operator(): "
            "block: [3663,0,0], thread: [64,0,0] Assertion `target_val >= zero && target_val <= one` failed.\n")
    [finding] = read(line)
    assert finding.id == "torch/cuda-device-assert"
    assert finding.summary == "A GPU kernel's own assertion failed in Loss.cu: `target_val >= zero && target_val <= one`."
    # beside the RuntimeError it caused, the line that says more speaks for both
    [root] = read((LOGS / "torch-02.log").read_text())
    assert root.summary == finding.summary and root.values["assertion"] == "target_val >= zero && target_val <= one"


UNKNOWN_MODEL = ("import json, pathlib, tempfile\n"
                 "from transformers import AutoConfig\n"
                 "d = tempfile.mkdtemp(); pathlib.Path(d, 'config.json').write_text(json.dumps({'model_type': 'olmo9'}))\n"
                 "AutoConfig.from_pretrained(d)\n")


def _stderr_of(argv: list[str]) -> str:
    child = subprocess.run(argv, capture_output=True, text=True, timeout=300,
                           env={"ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    return child.stdout + child.stderr


def test_a_lookup_error_re_raised_with_an_explanation_is_explained():
    """transformers turns the KeyError of its model-type lookup into the ValueError that says
    what it means: that one is the root, though the KeyError came first in the chain."""
    pytest.importorskip("transformers")
    text = _stderr_of([sys.executable, "-c", UNKNOWN_MODEL])
    assert "During handling of the above exception" in text
    [root] = read(text)
    assert root.id == "transformers/unknown-model-type" and root.values["model_type"] == "olmo9"


def test_a_notebook_traceback_whole_and_cut_before_its_last_line():
    """IPython's format (what Jupyter users paste): the type in the header, qualified frame
    names, numbered source lines with an arrow; cut before the message, the raise line and the
    message's f-string below it still identify the entry."""
    pytest.importorskip("IPython")
    pytest.importorskip("transformers")
    text = _stderr_of([sys.executable, "-m", "IPython", "--colors=NoColor", "--no-banner", "-c", UNKNOWN_MODEL])
    assert "Traceback (most recent call last)" in text and "----> " in text
    [root] = read(text)
    assert root.id == "transformers/unknown-model-type" and not root.partial
    cut = text[:text.rindex("ValueError: The checkpoint")]
    [root] = read(cut)
    assert root.id == "transformers/unknown-model-type" and root.partial and root.exception == "ValueError"


def test_one_crash_is_one_finding():
    """vLLM's illegal-address crash: caret lines, torch's hint lines, the watchdog's abort, the
    worker's re-raise and its log lines are one root cause; --all shows the rest."""
    text = (LOGS / "vllm-05.log").read_text()
    [root] = read(text)
    assert root.id == "torch/cuda-illegal-address" and root.folded >= 2
    everything = read(text, all=True)
    assert len(everything) > 1 and not any(set(f.message) <= set("^~ ") for f in everything)
    assert not any(f.message.startswith(("CUDA kernel errors might", "For debugging consider")) for f in everything)


def test_a_wrapper_exception_is_never_the_root_cause():
    text = (LOGS / "vllm-07.log").read_text()            # EngineDeadError, its cause not in the paste
    found = read(text, all=True)
    assert found and all(not f.root_cause for f in found if f.id == "vllm/engine-dead")


def test_a_note_written_at_run_time_is_read_back_and_wins():
    text = """Traceback (most recent call last):
  File "/x/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility
    assert numerator % denominator == 0
AssertionError: 16 is not divisible by 6
[sglang/not-divisible] 16 cannot be split into 6 parts: use 1, 2, 4, 8 or 16 (values from the live process)
  resolution: fix the configuration
  fix 1: launch with --tp 4
  more: enrich explain sglang/not-divisible
"""
    [finding] = read(text)
    assert finding.id == "sglang/not-divisible"
    assert finding.summary == "16 cannot be split into 6 parts: use 1, 2, 4, 8 or 16 (values from the live process)"
    assert finding.fixes == ["launch with --tp 4"]


def test_the_generic_note_is_read_back():
    from enrich.model import Enrichment
    from enrich.render.note import note
    generic = Enrichment(id="", title="", engine="", component="", fixes=(), generic=True,
                         summary="`assert not prompt_logprobs_tensors` failed in vllm.v1.core.sched.scheduler:"
                                 "update_from_output (prompt_logprobs_tensors=<Tensor>)")
    text = """Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/vllm/v1/core/sched/scheduler.py", line 977, in update_from_output
    assert not prompt_logprobs_tensors
AssertionError
""" + note(generic) + "\n"
    [finding] = read(text)
    assert finding.generic and finding.summary == generic.summary


NOTEBOOK_ELIDED = '''ValueError                                Traceback (most recent call last)
Cell In[4], line 2
      1 from transformers import AutoConfig
----> 2 AutoConfig.from_pretrained("/models/adapter")

File ~/venv/lib/python3.11/site-packages/mylib/loader.py:88, in load(path)
     87 def load(path):
---> 88     return AutoConfig.from_pretrained(path)

...
-> 1158     raise ValueError(
   1159         f"Unrecognized model in {pretrained_model_name_or_path}. "
   1160         f"Should have a `model_type` key in its {CONFIG_NAME}, or contain one of the following strings "
'''


def test_a_raise_line_after_frames_cut_out_is_not_the_last_named_frames():
    """IPython's "..." stands for frames cut out: the raise line after it belongs to none of the
    named frames (mylib did not raise it), and its message's leading words still say the entry."""
    from enrich.logs.reader import parse_text
    [exc] = parse_text(NOTEBOOK_ELIDED)
    assert exc.frames[-2].module == "mylib.loader" and exc.frames[-2].source.startswith("return AutoConfig")
    assert exc.frames[-1].module == "" and exc.frames[-1].source.startswith("raise ValueError(")
    [finding] = read(NOTEBOOK_ELIDED)
    assert finding.id == "transformers/no-model-type" and finding.partial


def test_a_message_cut_a_few_letters_in_is_known_at_its_raise_frame():
    """mlx's load_weights raises four messages; the letters printed before the cut say which."""
    text = '''Traceback (most recent call last):
  File "/venv/lib/python3.14/site-packages/mlx_vlm/utils.py", line 231, in load_model
    model.load_weights(list(weights.items()))
  File "/venv/lib/python3.14/site-packages/mlx/nn/layers/base.py", line 200, in load_weights
    raise ValueError(
    ...<2 lines>...
    )
ValueError: Expected shap'''
    [finding] = read(text)
    assert finding.id == "mlx/load-weights-shape" and finding.partial
    assert read(text.replace("Expected shap", "Expected"))[0].id is None       # too few letters to tell
    moved = text.replace("mlx/nn/layers/base.py", "mlx_vlm/models/base.py")
    assert read(moved)[0].id is None                  # not raised at the entry's site


def test_a_printed_statement_that_goes_on_over_unindented_lines():
    """A string with newlines in an assert's source: its lines are the statement, not the end of
    the traceback, so the raise frame still says whose assert it was."""
    text = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.10/site-packages/neuronx_distributed/parallel_layers/utils.py", line 9, in ensure_divisibility
    assert numerator % denominator == 0, "
{}
 is not divisible by
{}
".format(
AssertionError: 50257 is not divisible by 8
'''
    [finding] = read(text)
    assert finding.id is None and finding.exception == "AssertionError"
    sglang = text.replace("neuronx_distributed/parallel_layers/utils.py", "sglang/srt/utils.py")
    assert read(sglang)[0].id == "sglang/not-divisible"


def test_an_empty_line_of_the_same_record_does_not_end_its_message():
    """Triton's ptxas error has an empty line before its "Repro command:"; inductor logs each line
    under one glog prefix, the empty one included: the command is the message's, not an error."""
    head = "E0305 20:23:38.779000 745 site-packages/torch/_inductor/runtime/triton_heuristics.py:533]"
    text = "\n".join(f"{head} {line}".rstrip() for line in [
        "RuntimeError: Internal Triton PTX codegen error", "`ptxas` stderr:",
        "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'", "",
        "Repro command: /venv/triton/backends/nvidia/bin/ptxas -lineinfo -v --gpu-name=sm_120 /tmp/k.ptx", ""])
    [finding] = read(text, all=True)
    assert finding.id == "triton/ptxas-unknown-arch" and finding.message.endswith("/tmp/k.ptx")


def test_nccl_warn_lines_of_two_ranks_are_not_a_repeated_tag():
    lines = [f"myhost:{pid}:{pid} [0] init.cc:943 NCCL WARN Duplicate GPU detected : rank {a} and rank {b} "
             "both on CUDA device 53000" for pid, a, b in ((2292596, 0, 1), (2292597, 1, 0))]
    found = read("\n".join(lines) + "\n")
    assert [f.id for f in found] == ["torch/nccl-duplicate-gpu"] and found[0].count == 2


def test_a_signature_ending_in_a_dotted_class_is_code():
    assert read("def vector_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n    return a + b\n") == []


def test_a_traceback_cut_in_the_raise_statement_at_a_site_is_known_by_its_class():
    """The paste ends inside the raise line of sglang's KV allocator: the site and the class
    raised there say which entry; another class, or a frame below the site, says nothing."""
    text = '''Traceback (most recent call last):
  File "/sgl/python/sglang/srt/managers/schedule_batch.py", line 1402, in prepare_for_extend
    out_cache_loc = alloc_for_extend(self)
  File "/sgl/python/sglang/srt/mem_cache/common.py", line 377, in alloc_paged_token_slots_extend
    raise RuntimeError(error_m'''
    [finding] = read(text)
    assert finding.id == "sglang/kv-pool-out-of-memory" and finding.partial
    assert read(text.replace("raise RuntimeError(", "raise ValueError("))[0].id is None
    deeper = text + '''
  File "/sgl/python/sglang/srt/utils.py", line 90, in helper
    raise RuntimeError(msg'''
    assert read(deeper)[0].id is None


def test_a_traceback_cut_at_the_header_of_a_check_that_only_one_entry_raises():
    """The paste stops at the innermost frame's header, before its source line. A function whose
    job is one check, the site of one entry, says which error; an API that is the innermost
    frame of whatever its C++ raises says nothing."""
    text = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 71, in init_model
    _check_if_gpu_supports_dtype(self.model_config.dtype)
  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 231, in _check_if_gpu_supports_dtype
'''
    [finding] = read(text)
    assert finding.id == "vllm/bf16-compute-capability" and finding.partial
    collective = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.8/dist-packages/vllm/distributed/parallel_state.py", line 1002, in ensure_model_parallel_initialized
    all_reduce(data)
  File "/usr/local/lib/python3.8/dist-packages/torch/distributed/distributed_c10d.py", line 2288, in all_reduce
'''
    assert read(collective)[0].id is None
    lookup = '''Traceback (most recent call last):
  File "/home/y/Medusa/medusa/model/modeling_llama_kv.py", line 471, in __init__
    self.num_key_value_heads = config.num_key_value_heads
  File "/home/y/.local/lib/python3.10/site-packages/transformers/configuration_utils.py", line 261, in __getattribute__
'''
    assert read(lookup)[0].id == "transformers/config-missing-attribute"     # an attribute lookup's one check


def test_a_raise_statement_under_a_frame_whose_function_was_elided():
    """"line 227, ..." hides the function; the assert printed below it is the entry's own."""
    text = '''File ".../srt/layers/moe/fused_moe_triton/layer.py", line 227, ...
    assert (num_experts - num_shared_slots) % self.moe_ep_size == 0
AssertionError
'''
    [finding] = read(text)
    assert finding.id == "sglang/moe-experts-ep" and finding.partial
    assert read(text.replace("% self.moe_ep_size", "% self.tp_size_of_dense"))[0].id is None



def test_a_raise_statements_placeholder_stands_for_any_value():
    """mlx's "Received parameters not in model: {extras}" names no parameters: it is the general
    entry, not the one for quantization's scales and biases alone, which a value would tell."""
    [finding] = read('# [BUG] raise ValueError(f"Received parameters not in model: {extras}\n\nconverting a model fails\n')
    assert finding.id == "mlx/load-weights-unexpected" and finding.partial
    [finding] = read("ValueError: Received parameters not in model: lm_head.scales lm_head.biases.\n")
    assert finding.id == "mlx/load-weights-quantized-unexpected"

OLD_LOOKUP = '''Traceback (most recent call last):
  File "/opt/conda/lib/python3.9/site-packages/transformers/models/auto/configuration_auto.py", line 745, in from_pretrained
    config_class = CONFIG_MAPPING[config_dict["model_type"]]
  File "/opt/conda/lib/python3.9/site-packages/transformers/models/auto/configuration_auto.py", line 452, in __getitem__
    raise KeyError(key)
KeyError: 'llama'
'''


def test_an_old_release_lets_the_lookup_error_out_with_only_the_model_type():
    [finding] = read(OLD_LOOKUP)
    assert finding.id == "transformers/unknown-model-type"
    elsewhere = OLD_LOOKUP.replace('config_class = CONFIG_MAPPING[config_dict["model_type"]]', "config_class = registry[name]")
    assert read(elsewhere)[0].id is None      # another lookup at that site


def test_a_traceback_pasted_without_its_indentation():
    """A paste that shifted the lines: frames and their statements at the margin, the exception
    line indented by one."""
    shifted = OLD_LOOKUP.replace("  File", "File").replace("    config_class", "config_class") \
                        .replace("KeyError: 'llama'", " KeyError: 'llama'")
    [finding] = read(shifted)
    assert finding.id == "transformers/unknown-model-type" and finding.exception == "KeyError"


def test_a_message_quoted_on_a_line_after_prose_counts_once():
    [finding] = read("the worker then says\nno kernel image is available for execution on the device\n")
    assert finding.id == "torch/cuda-no-kernel-image" and finding.count == 1


@pytest.mark.parametrize("quoted", ["_**RuntimeError: {}**_", "`RuntimeError: {}`", "**{}**"])
def test_a_cut_message_quoted_in_prose_with_its_class_or_in_bold(quoted):
    line = "under load this can cause " + quoted.format("Prefill out of memory. Try to lower your batch size") + "\n"
    [finding] = read(line)
    assert finding.id == "sglang/kv-pool-out-of-memory" and finding.partial


@pytest.mark.parametrize("crash, entry", [
    ("import ctypes; ctypes.string_at(0)", "process/segfault"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGBUS)", "process/bus-error"),
])
def test_faulthandlers_report_of_a_crash_is_one_finding(crash, entry):
    """python -X faulthandler prints "Fatal Python error: <signal>" and each thread's stack, whose
    frame lines ("line 1 in <module>") are no traceback of their own. ("Aborted" is left out: an
    abort follows the error that caused it, printed before.)"""
    text = subprocess.run([sys.executable, "-X", "faulthandler", "-c", "import threading\n" + crash],
                          capture_output=True, text=True).stderr
    assert "Fatal Python error" in text and "most recent call first" in text
    [finding] = read(text)
    assert finding.id == entry


def test_a_message_with_a_terminals_wrap_padding_inside_its_words():
    line = ("ValueError: Loading /models/chatglm3 requires you to execute the conf                iguration file "
            "in that repo on your local machine. Make sure you have read the code there to avoid malicious u"
            "                se, then set the option `trust_remote_code=True` to remove this error.\n")
    [finding] = read(line)
    assert finding.id == "transformers/trust-remote-code"


def test_a_message_quoted_late_in_a_long_line_of_prose():
    prose = " ".join(["the server admitted the request and then"] * 12)
    line = prose + " died with (`Command buffer execution failed: Insufficient Memory (kIOGPUCommandBufferCallbackErrorOutOfMemory)`).\n"
    [finding] = read(line)
    assert finding.id == "mlx/metal-command-buffer-oom"


def test_a_wrappers_quoted_message_gives_the_error_it_wraps():
    """sglang's "Capture cuda graph failed: <the error>" quoted whole: the wrapped FlashInfer
    error is the root, the wrapper is not (sgl-project/sglang#24714)."""
    text = ("```\nException: Capture cuda graph failed: Error in function 'VariableLengthMergeStates' at "
            "/venv/lib/python3.12/site-packages/flashinfer/data/include/flashinfer/attention/cascade.cuh:697: "
            "Unsupported head_dim: 106\nPossible solutions:\n```\n")
    every = read(text, all=True)
    assert [f.id for f in every if f.root_cause] == ["flashinfer/no-kernel-config"]
    assert "sglang/cuda-graph-capture-failed" in [f.id for f in every if not f.root_cause]



def test_a_wrapper_raised_at_its_own_site_still_gives_the_error_it_quotes():
    """vLLM's engine re-raises a worker's error as text inside "Worker failed with error '...'";
    printed with its raise frame, the quote is still the worker's error, not vLLM's words."""
    tag = "(EngineCore pid=380) ERROR 04-12 05:43:37 [core.py:1110] "
    text = "".join(tag + line + "\n" for line in [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 399, in get_response',
        "    raise RuntimeError(",
        "RuntimeError: Worker failed with error 'at 1:0:",
        "def _w8a8_triton_block_scaled_mm(",
        "^",
        """ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')")', """
        "please check the stack trace above for the root cause"])
    every = read(text, all=True)
    assert [f.id for f in every if f.root_cause] == ["triton/fp8e4nv-unsupported"]
    assert "vllm/worker-rpc-failed" in [f.id for f in every if not f.root_cause]
    wrapped = "RuntimeError: Worker failed with error '{}', please check the stack trace above for the root cause\n"
    assert [f.id for f in read(wrapped.format("Could not find nvcc"))] == ["flashinfer/nvcc-not-found"]
    assert [f.id for f in read(wrapped.format("LoRA rank 32 is greater than max_lora_rank 16."))] == ["vllm/worker-rpc-failed"]

@pytest.mark.parametrize("line, entry", [
    ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
     "torch/nccl-remote-error"),
    ("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
     "torch/nccl-system-error"),
    ("ncclUnhandledCudaError: Call to CUDA function failed.", "torch/nccl-cuda-error"),
])
def test_torchs_per_code_line_quoted_without_the_first(line, entry):
    assert [f.id for f in read(f"We keep getting `{line}` on 4 nodes.\n")] == [entry]


def test_a_param_named_in_prose_that_goes_on():
    text = ("I get error ValueError: Expected shape (262144, 640) but received shape (262144, 80) for parameter "
            "lm_head.weight when i fine tune the model\n")
    [finding] = read(text)
    assert finding.id == "mlx/load-weights-shape" and finding.values["param"] == "lm_head.weight"


def test_torchs_launcher_wording_of_the_shared_memory_limit():
    """inductor's launcher checks a compiled Triton kernel's shared memory itself, naming the kernel."""
    line = ("[rank0]:Exception No valid triton configs. OutOfMemoryError: out of resource: triton_flex_attention "
            "Required: 262144 Hardware limit:232448 Reducing block sizes or `num_stages` may help.\n")
    [finding] = read(line)
    assert finding.id == "triton/oor-shared-memory"
    assert finding.values["required"] == "262144" and finding.values["limit"] == "232448"


def test_a_vs_code_notebooks_linked_frames_are_frames():
    """VS Code links each frame's path; Triton 2.0's one-module compiler raised CompilationError."""
    link = "https://file%2B.vscode-resource.vscode-cdn.net/usr/lib/python3.8/dist-packages/triton/compiler.py:942"
    text = (f"File [/usr/lib/python3.8/dist-packages/triton/compiler.py:942]({link}), in build_triton_ir(fn, signature)\n"
            "    941         raise e\n"
            "--> 942     raise CompilationError(fn.src, node) from e\n\n"
            "CompilationError: at 78:24:\ndef _fwd_kernel(\n    Q, K, V,\n")
    [finding] = read(text)
    assert finding.id == "triton/compilation-error" and finding.site == "triton.compiler:build_triton_ir"


def test_colabs_folded_notebook_frames_are_frames():
    """IPython 7 as Colab prints it: each path linked, no line number but the arrow's, library frames folded."""
    text = ("CompilationError                          Traceback (most recent call last)\n"
            "[<ipython-input-6-3d62c575fcfd>](https://localhost:8080/#) in <cell line: 1>()\n"
            "----> 1 trainer_stats = trainer.train()\n\n25 frames\n"
            "[/usr/local/lib/python3.10/dist-packages/triton/compiler/compiler.py](https://localhost:8080/#) in make_ir(self, options)\n"
            "    112     def make_ir(self, options, codegen_fns, context):\n"
            "--> 113         return ast_to_ttir(self.fn, self, context=context, options=options)\n\n"
            "CompilationError: at 59:8:\n        if DO_SOFTCAPPING:   x = SOFTCAP * triton_tanh(x / SOFTCAP)\n        ^\n"
            "AssertionError('initial value for `x` is of type fp16, but the then block redefines it as fp32')\n")
    [finding] = read(text)
    assert finding.id == "triton/compilation-error" and finding.site == "triton.compiler.compiler:make_ir"
    assert "then block redefines it" in finding.message        # the error after the caret is the message's


def test_tritons_compilation_error_without_frames_in_a_text_that_shows_a_kernel():
    """"CompilationError: at L:C:" over a kernel's source and a caret is Triton's; printed after prose,
    its message still goes on to the error after the caret, which names the entry when it has one."""
    kernel = "CompilationError: at 16:12:\n    tmp9 = tmp7 - tmp8\n    tmp10 = libdevice.pow(2, ks1)\n            ^\n"
    assert [f.id for f in read(kernel)] == [None]                # no sign of a Triton kernel
    assert [f.id for f in read("    tmp0 = tl.load(in_ptr0 + (x0), xmask)\n" + kernel)] == ["triton/compilation-error"]
    fp8 = ("!!! Exception during processing !!! CompilationError: at 1:0:\n"
           "def triton_poi_fused__to_copy_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n^\n"
           "ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")\n")
    assert [f.id for f in read(fp8)] == ["triton/fp8e4nv-unsupported"]


@pytest.mark.parametrize("error", [
    "ValueError: arange's range must be a power of 2",
    'ValueError("arange\'s end argument must be greater than the start argument")',
    "AssertionError('Both operands must be same type. First operand (bf16) and second operand (uint8)')",
    "AssertionError: Both operands must be same dtype. Got fp16 and fp32",
    "TypeError('unexpected type fp32')",
    "ValueError: Cannot broadcast, rank mismatch: ['32'], ['32', '64']",
    "AttributeError: 'tuple_type' object has no attribute 'is_ptr'",
    "UnsupportedLanguageConstruct: unsupported AST node type: Lambda",
    "future: <Task finished name='Task-5' coro=<RouterManager.loop_for_fwd() done> "
    "exception=CompilationError('at 38:4:\\ndef _rotary_kernel(\\n    Q, Cos, Sin,')",   # asyncio's repr
])
def test_tritons_front_end_checks_without_frames_in_a_text_that_shows_a_kernel(error):
    """The front end's own checks (triton/language, the code generator), printed without frames, are a
    kernel failing to compile where the text shows one; elsewhere the words could be anyone's."""
    kernel = "    offs = tl.arange(0, BLOCK)\n    x = tl.load(X + offs, mask=offs < n)\n"
    assert [f.id for f in read(kernel + error + "\n")] == ["triton/compilation-error"]
    assert "triton/compilation-error" not in [f.id for f in read(error + "\n")]

def test_comfyuis_error_report_reads_as_its_exception():
    """ComfyUI's report gives the type and the message as markdown bullets, then its stack trace."""
    text = ("# ComfyUI Error Report\n## Error Details\n- **Node ID:** 9\n- **Node Type:** FluxTrainModelSelect\n"
            "- **Exception Type:** ValueError\n"
            "- **Exception Message:** Error initializing torch.distributed using env:// rendezvous: "
            "environment variable RANK expected, but not set\n## Stack Trace\n```\n")
    [finding] = read(text)
    assert finding.id == "torch/dist-env-missing" and finding.exception == "ValueError"
    assert "Stack Trace" not in finding.message


def test_a_retyped_frame_line_with_its_spaces_changed_is_a_frame():
    text = ('  File "/sgl-workspace/sglang/python/sglang/srt/models/qwen2.py",  line398, in load_weights\n'
            "    param = params_dict[name]\nKeyError: 'lm_head.weight'\n")
    [finding] = read(text)
    assert finding.id == "sglang/load-weights-unknown-tensor"


def test_an_error_quoted_first_then_printed_with_its_traceback_is_known_by_the_frames():
    """The one-line quote comes first; the traceback after it says where it was raised."""
    text = ("error: KeyError: 'qwen2'\n\nTraceback (most recent call last):\n"
            '  File "/env/site-packages/transformers/models/auto/configuration_auto.py", line 1022, in from_pretrained\n'
            '    config_class = CONFIG_MAPPING[config_dict["model_type"]]\n'
            '  File "/env/site-packages/transformers/models/auto/configuration_auto.py", line 723, in __getitem__\n'
            "    raise KeyError(key)\nKeyError: 'qwen2'\n")
    [finding] = read(text)
    assert finding.id == "transformers/unknown-model-type" and finding.count == 2 and finding.line == 1


def test_markdown_bold_inside_a_message():
    text = ("ValueError: Unrecognized model in XXX. **Should have a `model_type` key in its config.json**, or contain "
            "one of the following strings in its name: albert, bart\n")
    assert [f.id for f in read(text)] == ["transformers/no-model-type"]


def test_a_glog_error_record_before_a_traceback_is_read_when_streaming():
    """A record at glog's E level holds no trigger word; the traceback after it does."""
    from enrich.catalog import get_catalog
    from enrich.logs.findings import group
    from enrich.logs.stream import scan
    prefix = "E0403 10:21:22.723000 353 torch/_inductor/runtime/triton_heuristics.py:617] "
    text = "".join(prefix + line + "\n" for line in (
        "metadata: {'signature': {'in_ptr0': '*bf16'}, 'num_warps': 4}", "Traceback (most recent call last):",
        '  File "/x/triton/compiler/compiler.py", line 100, in compile', "    raise ValueError(msg)",
        "ValueError: something went wrong"))
    streamed = [(f.message, f.root_cause) for f in group(scan(io.StringIO(text)), get_catalog(), all=True)]
    assert streamed == [(f.message, f.root_cause) for f in read(text, all=True)]
    assert any(message.startswith("metadata:") for message, _ in streamed)


def test_tensorflows_absl_error_record_is_read_when_streaming():
    """TensorFlow's and XLA's records at absl's E level ("<time>: E external/...cc:477] ...") hold
    no other trigger word."""
    from enrich.catalog import get_catalog
    from enrich.logs.findings import group
    from enrich.logs.stream import scan
    text = ("starting\n" * 3 + "2025-04-24 01:08:38.051359: E external/local_xla/xla/stream_executor/cuda/"
            "cuda_fft.cc:477] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT\n")
    streamed = [(f.message, f.root_cause) for f in group(scan(io.StringIO(text)), get_catalog(), all=True)]
    assert streamed == [(f.message, f.root_cause) for f in read(text, all=True)] != []


def test_a_message_a_line_quotes_alone_is_not_read_again_joined_to_the_lines_around_it():
    """Joined with the line before and the one after, a cut message runs on into the next line;
    it is still the one the line quotes alone, once."""
    text = ("[rank4]:[E602 11:18:52.531247012 ProcessGroupNCCL.cpp:698] [Rank 4] To avoid data inconsistency, we are "
            "taking the entire process down.\n"
            "[rank4]:[E602 11:18:52.536602063 ProcessGroupNCCL.cpp:1896] [PG ID 1 PG GUID 1 Rank 4] Process group "
            "watchdog thread terminated with exception: [Rank 4] Watchdog\n")
    alone = [(f.id, f.count) for f in read(text, all=True)]
    assert [(f.id, f.count) for f in read(text + "```\n", all=True)] == alone
    assert [(f.id, f.count) for f in read(text + "\nnext\n", all=True)] == alone


def test_torchs_weights_only_message_cut_before_the_global_names_the_disallowed_global():
    """torch words it "This file can still be loaded" only for a GLOBAL it does not allow; the other
    refusals (a file that is no checkpoint) start "Weights only load failed. In PyTorch 2.6"."""
    cut = ("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two "
           "options, do those steps only if you trust the source of the checkpoint. \n"
           "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from "
           "`False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed,\n"
           "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
           "following error message.\n\tWeightsUnpickler error")     # ByteDance-Seed/Chain-of-Action#9, cut here
    assert [f.id for f in read(cut)] == ["torch/load-weights-only-global"]
    other = ("_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the "
             "weights_only argument in torch.load from False to True.\n"
             "Please file an issue with the following so that we can make weights_only=True compatible with your use "
             "case: WeightsUnpickler error: unsupported persistent id encountered\n")
    assert not [f.id for f in read(other) if f.id]


def test_a_paste_cut_inside_the_exceptions_name_is_cut_before_its_message():
    """satojkovic/DeepLogo2#4 stops at "ValueE": the frames say which error it was."""
    text = ("Traceback (most recent call last):\n"
            '  File "/usr/lib/python3.9/site-packages/torch/distributed/rendezvous.py", line 255, in _env_rendezvous_handler\n'
            '    master_addr = _get_env_or_raise("MASTER_ADDR")\n'
            '  File "/usr/lib/python3.9/site-packages/torch/distributed/rendezvous.py", line 232, in _get_env_or_raise\n'
            "    raise _env_error(env_var)\nValueE")
    [finding] = read(text)
    assert finding.id == "torch/dist-env-missing" and finding.partial and finding.exception == ""
    assert [f.id for f in read(text.replace("ValueE", "ValueError"))] == ["torch/dist-env-missing"]


def test_a_kernel_assertion_built_on_windows():
    """torch's Windows wheels print the kernel's source path with backslashes."""
    line = ("C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\aten\\src\\ATen\\native\\cuda\\"
            "IndexKernel.cu:92: block: [2789,0,0], thread: [125,0,0] Assertion `index >= -sizes[i] && "
            "index < sizes[i] && \"index out of bounds\"` failed.\n")
    [finding] = read(line * 3)
    assert finding.id == "torch/cuda-device-assert" and finding.values["kernel_file"] == "IndexKernel.cu"


def test_huggingface_hubs_own_repository_not_found():
    """huggingface_hub's RepositoryNotFoundError, as ComfyUI reports it: a repo the Hub does not
    serve to this client."""
    text = ("- **Exception Type:** huggingface_hub.errors.RepositoryNotFoundError\n"
            "- **Exception Message:** 401 Client Error. (Request ID: Root=1-69858bdc-5f152227)\n\n"
            "Repository Not Found for url: https://huggingface.co/depth-anything/Depth-Anything-V2-Giant/resolve/main/"
            "depth_anything_v2_vitg.pth.\nPlease make sure you specified the correct `repo_id` and `repo_type`.\n")
    assert [f.id for f in read(text)] == ["transformers/repo-not-found"]


def test_the_hubs_offline_hint_names_transformers_docs():
    """The second sentence of transformers' couldn't-connect error is its own where it links
    transformers' offline docs; diffusers says the same of its own after any download failure."""
    title = ("# Checkout your internet connection or see how to run the library in offline mode at "
             "'https://huggingface.co/docs/{}/installation#offline-mode'.\n")
    assert [f.id for f in read(title.format("transformers"))] == ["transformers/hub-unreachable"]
    assert not any(f.id for f in read(title.format("diffusers")))


def test_a_title_quote_where_cjk_prose_gives_way_to_the_message():
    title = "# A100 vllm部署Qwen2.5-VL-3B-Instruct，load模型之后报错No available memory for the cache blocks\n"
    assert [f.id for f in read(title)] == ["vllm/no-kv-cache-memory"]
    assert [f.id for f in read("# OpenRLHF: model's max seq len (8192) is larger than the maximum number of "
                               "tokens that can be stored in KV cache (6048).\n")] == ["vllm/kv-cache-max-seq-len-v0"]


def test_tritons_error_classes_named_with_their_module():
    text = ("triton.compiler.errors.UnsupportedLanguageConstruct: \n"
            "Boolean value of Tensor with more than one value is ambiguous\nat line: if zero_bit_offset <= 29:\n")
    assert [f.id for f in read(text)] == ["triton/compilation-error"]


def test_torchs_nccl_error_with_its_path_elided_by_the_poster():
    line = "RuntimeError: NCCL error in: ... /torch/lib/c10d/ProcessGroupNCCL.cpp:290, unhandled system error\n"
    assert [f.id for f in read(line)] == ["torch/nccl-system-error"]


@pytest.mark.parametrize("words", ['Failed: keyNotFound(base: "Linear", key: "weight")',
                                   '"Key weight not found in Linear"'])
def test_mlx_swifts_missing_parameter(words):
    """MLX Swift's strict update (verify: .all) names the missing key and the module that lacks it."""
    assert [f.id for f in read(f"Loading Qwen 2.5 with mlx-swift 0.21.3 fails: {words}\n")] == ["mlx/load-weights-missing"]


TRITON_FRONT_END = """Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/triton/compiler/code_generator.py", line 1124, in visit_Assign
    values = self.visit(node.value)
  File "/opt/conda/lib/python3.10/site-packages/triton/compiler/code_generator.py", line 1204, in visit
    ret = super().visit(node)
  File "/opt/conda/lib/python3.10/site-packages/triton/compiler/code_generator.py", line 1371, in visit_Call
"""


def test_a_traceback_cut_inside_tritons_front_end():
    """Triton's code generator turns whatever is raised under it into a CompilationError: cut there,
    the traceback is a kernel failing to compile, though its message is lost."""
    [finding] = read(TRITON_FRONT_END)
    assert finding.id == "triton/compilation-error" and finding.partial
    two_zero = TRITON_FRONT_END.replace("triton/compiler/code_generator.py", "triton/compiler.py")
    assert [f.id for f in read(two_zero)] == ["triton/compilation-error"]     # 2.0's one module, CodeGenerator
    backend = ('Traceback (most recent call last):\n  File "/usr/lib/python3/site-packages/triton/compiler/compiler.py", '
               'line 300, in compile\n    next_module = compile_ir(module, metadata)\n'
               '  File "/usr/lib/python3/site-packages/triton/backends/nvidia/compiler.py", line 400, in make_cubin\n')
    assert not any(f.id for f in read(backend))        # the backend's steps wrap nothing


def test_a_cut_front_end_traceback_yields_to_the_error_the_text_names():
    quoted = "# AssertionError: fp8e4nv data type is not supported on CUDA arch < 89\n\n" + TRITON_FRONT_END
    assert [f.id for f in read(quoted)] == ["triton/fp8e4nv-unsupported"]


def test_tritons_front_end_words_beside_any_tl_call():
    text = ("tmp25 = tl.broadcast_to(((tl.full([1], 1.0, tl.float64))), [XBLOCK])\n"
            "ValueError: Cannot broadcast, rank mismatch: [1], [1, 2048]\n")
    assert [f.id for f in read(text)] == ["triton/compilation-error"]


@pytest.mark.parametrize("words", [
    'keyNotFound(path: ["language_model", "model", "layers", "0", "per_layer_input_gate", "biases"], modules: ["x"])',
    "Key language_model.model.layers.0.per_layer_input_gate.biases not found in Gemma4Model.Gemma4TextModel",
])
def test_mlx_swifts_later_missing_key(words):
    assert [f.id for f in read(f"mlx-swift-lm fails to load gemma-4-e2b-it-mxfp4:\n{words}\n")] == ["mlx/load-weights-missing"]


def test_a_local_path_that_is_not_there_read_as_a_hub_id_on_windows():
    """A Windows path's drive colon and backslashes fail huggingface_hub's character rule before
    its slash count: the folder is not there, as with the form rule's wording."""
    line = ("huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.', '--' and '..' "
            "are forbidden, '-' and '.' cannot start or end the name, max length is 96: "
            "'D:\\ComfyUI\\models\\LLavacheckpoints\\files_for_uform_gen2_qwen'.\n")
    [finding] = read(line)
    assert finding.id == "transformers/model-path-not-found"
    assert finding.values["path"] == "D:\\ComfyUI\\models\\LLavacheckpoints\\files_for_uform_gen2_qwen"
    assert not any(f.id for f in read(line.replace("'D:\\ComfyUI\\models\\LLavacheckpoints\\files_for_uform_gen2_qwen'",
                                                   "'meta llama/Llama 3'")))     # a misspelt id is another mistake


def test_tritons_compilation_error_in_a_text_that_names_triton():
    assert [f.id for f in read("# CompilationError: at 114:24:\n\nThe triton flash-attention kernel fails.\n")] == \
        ["triton/compilation-error"]
    assert [f.id for f in read("[pod/triton-server-0/triton] CompilationError: at 114:24:\n")] == [None]


SGL_KERNEL_REPORT = """Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/sgl_kernel/load_utils.py", line 120, in _load_architecture_specific_ops
    raise ImportError(error_msg)
ImportError: 
[sgl_kernel] CRITICAL: Could not load any common_ops library!

Attempted locations:
1. Architecture-specific pattern: /usr/lib/python3/site-packages/sgl_kernel/sm100/common_ops.* - found files: ['x']
2. Fallback pattern: /usr/lib/python3/site-packages/sgl_kernel/common_ops.* - found files: []

GPU Info:
- Compute capability: 100
- CUDA version: 13.0

Error details from previous import attempts:
- ImportError: {first}
- ModuleNotFoundError: No module named 'common_ops'
"""


def test_a_message_written_as_a_report_is_read_past_its_blank_lines():
    """sgl_kernel's report of failed loads has its parts apart; the error of the first attempt, in
    the last part, is the cause."""
    [finding] = read(SGL_KERNEL_REPORT.format(first="libcuda.so.1: cannot open shared object file: No such file or directory"))
    assert finding.id == "sglang/sgl-kernel-load-failed"
    assert finding.values["first_error"].startswith("ImportError: libcuda.so.1") and finding.values["cc"] == "100"
    symbol = ("/usr/lib/python3/site-packages/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: "
              "_ZN3c104cuda9SetDeviceEab")
    assert [f.id for f in read(SGL_KERNEL_REPORT.format(first=symbol))] == ["sglang/sgl-kernel-undefined-symbol"]


def test_prose_after_a_blank_line_stays_out_of_the_message():
    text = "RuntimeError: CUDA error: out of memory\n\nI tried a smaller batch:\nit still fails.\n"
    [finding] = read(text)
    assert finding.message == "CUDA error: out of memory"


@pytest.mark.parametrize("text, entry, values", [
    # vLLM's paged-attention kernels (csrc/attention) check the head size at launch, in torch's words
    ("vllm 0.5.1 with TeleChat-12B: RuntimeError: Unsupported head size: 160\n",
     "vllm/head-size-unsupported", {"head_size": "160"}),
    # retyped with commas, MSVC's dtype names kept
    ("Inference failed: Expected query, key, and value to have the same dtype, but got query.dtype: float, "
     "key.dtype: struct c10::Half, and value.dtype: struct c10::Half instead.\n",
     "torch/sdpa-dtype-mismatch", {"k_dtype": "Half"}),
    # past the first words of a long line, a quote is tried where it opens, and past its class
    ("Modal jobs ran on `modal.Image.debian_slim()`, which ships the CUDA **runtime** but not the CUDA "
     "**toolkit** (`nvcc`). Models whose vLLM path JIT-compiles flashinfer kernels at runtime, Qwen3.5 "
     "and Qwen3-Next GDN linear attention, fail on the first forward pass with `RuntimeError: Could not "
     "find nvcc and default cuda_home='/usr/local/cuda' doesn't exist`. Most base images include nvcc.\n",
     "flashinfer/nvcc-not-found", {"cuda_home": "/usr/local/cuda"}),
    # a paste that wrapped the line or dropped its lead keeps the message's tail
    ("ddp多卡训练时，显示没有\nenvironment variable RANK expected, but not set\n",
     "torch/dist-env-missing", {"variable": "RANK"}),
    ("ValueError: Converting from SentencePiece and Tiktoken failed, if a converter for SentencePiece is "
     "available, provide a model path with a SentencePiece tokenizer.model file.Currently available "
     "slow->fast converters: ['AlbertTokenizer', 'BartTokenizer']\n",
     "transformers/tokenizer-backend", {}),
    ('Fix "triton.compiler.CompilationError" for codegened dropout code on H100\n', "triton/compilation-error", {}),
    # FlashInfer 0.0.x-0.1.x's allocator, misspelt
    ("[rank0]: RuntimeError: RuntimeError: Out of workspace memory in AlignedAlloactor\n",
     "flashinfer/workspace-overflow", {}),
    # the backend tokenizer's refusal by its last line alone
    ("# Error: You need to have sentencepiece installed to convert a slow tokenizer to a fast one.\n",
     "transformers/tokenizer-backend", {}),
    # transformers' own words for the Hub's GatedRepoError, before the Hub's lines were appended
    ("OSError: You are trying to access a gated repo.\nMake sure to request access at "
     "https://huggingface.co/meta-llama/LlamaGuard-7b and pass a token having permission to this repo\n",
     "transformers/repo-not-found", {"gated_repo": "meta-llama/LlamaGuard-7b"}),
    # the Hub's 403 for a file of a gated repository, before huggingface_hub names it GatedRepoError
    ("HTTPError: 403 Client Error: Forbidden for url: "
     "https://huggingface.co/meta-llama/Meta-Llama-3-8B-Instruct/resolve/main/config.json\n",
     "transformers/repo-not-found", {"gated_repo": "meta-llama/Meta-Llama-3-8B-Instruct"}),
    # NCCL's words without torch's ", NCCL version": cupy's "NCCL Error N:", vLLM's pynccl
    ("RuntimeError: NCCL Error 3: internal error - please report this issue to the NCCL developers\n",
     "torch/nccl-internal-error", {}),
    ("RuntimeError: NCCL error: remote process exited or there was a network error\n", "torch/nccl-remote-error", {}),
    # other programs' own NCCL checks: TensorRT-LLM's and FasterTransformer's file and line, RAPIDS raft's
    ("Failed, NCCL error /src/tensorrt_llm/cpp/plugins/allreducePlugin.cpp:295 'internal error - please report "
     "this issue to the NCCL developers'\n", "torch/nccl-internal-error", {}),
    ("RuntimeError: NCCL_ERROR: b'unhandled system error'\n", "torch/nccl-system-error", {}),
    # NCCL's "Last error" line quoted in a title that goes on
    ("# [Bug]: NCCL fails with Cuda failure 'operation not supported' on torchrun with vLLM\n",
     "torch/nccl-cuda-error", {}),
    # transformers 4.4x's wording before "chat template functions"
    ("ValueError: Cannot use apply_chat_template() because tokenizer.chat_template is not set and no template "
     "argument was passed! For information about writing templates, see the docs\n",
     "mlx-lm/chat-template-missing", {}),
    # urllib3's DNS failure for the Hub's host, the tail of requests' ConnectionError in a title
    ("# ConnectionError: Failed to resolve \\'huggingface.co\\' ([Errno 11001] getaddrinfo failed)\"))\')\n",
     "transformers/hub-unreachable", {"endpoint": "huggingface.co"}),
    # tl.dot's operand check, quoted without frames in a text that names Triton
    ("Triton matmul fails: AssertionError('All values in both first input shape ([constexpr[16], constexpr[8]]) "
     "and second input shape ([constexpr[8], constexpr[16]]) must be >= 16!')\n", "triton/compilation-error", {}),
    # ptxas's line without its name under vLLM, whose run-time kernels are Triton's
    ("$ vllm serve nvidia/Cosmos-Reason2-2B\nValue 'sm_121a' is not defined for option 'gpu-name'\n",
     "triton/ptxas-unknown-arch", {"arch": "sm_121a"}),
    # mlx's early wording: no count, the names on one line, every one a quantization tensor
    ("ValueError: Received parameters not in model: lm_head.scales lm_head.biases.\n",
     "mlx/load-weights-quantized-unexpected", {"first": "lm_head.scales"}),
    # MLX Swift's forms of the load checks: unhandledKeys (every key a quantization tensor), mismatchedSize's description
    ('"Failed: unhandledKeys(base: "Embedding", keys: ["biases", "scales"])\n',
     "mlx/load-weights-quantized-unexpected", {"first": "biases"}),
    ('Error: Unhandled keys ["experts", "router"] in language_model.model.layers.0 in Gemma4Model.Gemma4DecoderLayer\n',
     "mlx/load-weights-unexpected", {"first": "experts"}),
    ("Mismatched parameter language_model.model.per_layer_model_projection.weight in Gemma4Model.ScaledLinear shape. "
     "Actual [8960, 192], expected [8960, 1536]\n", "mlx/load-weights-shape", {"received": "8960, 192"}),
    # FlashInfer 0.0.x's dispatch over dtypes and head dims, named after the dtype
    ("RuntimeError: BatchPrefillWithPagedKVCache failed to dispatch with dtype Half\n", "flashinfer/no-kernel-config", {}),
    # NCCL's code line alone (a title): the internal error; its "Last error:" detail, where an entry knows
    # it, is the cause the code line reports (NCCL 2.27 with NCCL_SOCKET_IFNAME naming no interface)
    ("### ncclInternalError: Internal check failed. Proxy Call to rank 0 failed (Connect)\n",
     "torch/nccl-internal-error", {}),
    ("[trainer0|0]:ncclInternalError: Internal check failed.\n[trainer0|0]:Last error:\n"
     "[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n",
     "torch/nccl-no-socket-interface", {}),
    # the NCCL call and its error string, as other callers print them (Horovod, XLA)
    ("horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error\n",
     "torch/nccl-cuda-error", {}),
    ("INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
     "failed: unhandled system error (run with NCCL_DEBUG=INFO for details).\n", "torch/nccl-system-error", {}),
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation "
     "ncclCommInitRank(&comm, nranks, id, rank) failed: internal error - please report this issue to the NCCL developers. "
     "Last NCCL warning(error) log entry (may be unrelated) 'Attribute busid of node nic not found'.\n",
     "torch/nccl-internal-error", {}),
    # torch's cudaMallocAsync backend: on device 0 the index, a NUL, ends the message
    ("torch.OutOfMemoryError: Allocation on device \n", "torch/cuda-oom", {}),
    ("torch.OutOfMemoryError: Allocation on device 1 would exceed allowed memory. (out of memory)\n", "torch/cuda-oom",
     {"gpu": "1"}),
    # the weights-only unpickler's line alone, for a byte that starts text (a Git LFS pointer's 'v')
    ("kokoro-tts-1     | `weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported operand 118\n",
     "torch/load-not-a-checkpoint", {"opcode": "118"}),
    # a logfmt field ("error=<message>") in a Swift app's log
    ("        elapsedMs=484, error=Key cmvnMeans not found in FireRedASR2Model\n", "mlx/load-weights-missing",
     {"first": "cmvnMeans"}),
    # a raise statement pasted alone, its message written as two literals side by side
    ('raise RuntimeError("Distributed package doesn\'t have NCCL " "built in")\n', "torch/nccl-not-built-in", {}),
    # torch 1.0's THC wording of a CUDA error
    ("# RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/THCTensorMath.cu:24\n",
     "torch/cuda-device-assert", {}),
    # huggingface_hub 0.2x's wording of the repo-id character rule, for a Windows path
    ("# Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or end with '-' or '.' and the "
     "maximum length is 96: 'D:\\NB-ComfyUI\\ComfyUI\\models\\BiRefNet\\BiRefNet-General'.\n",
     "transformers/model-path-not-found", {}),
    # titles that keep only part of the message
    ("# Attempting to generate currently results in 'ValueError: Received 605 parameters not in model'+\n",
     "mlx/load-weights-unexpected", {"num_extra": "605"}),
    ("# The lower version of Transformers does not recognize this architecture like `qwen3_vl`\n",
     "transformers/unknown-model-type", {}),
    ("# ProcessGroupNCCL.cpp:260, unhandled cuda error, when using 2 nodes with 4 GPUs each\n",
     "torch/nccl-cuda-error", {}),
    ('multi-node training fails with "ProcessGroupNCCL.cpp:1269, internal error" and NCCL 2.14.3\n',
     "torch/nccl-internal-error", {}),
    # NCCL's bootstrap line retyped without the space before its colon
    ('the log says "NCCL error in: ProcessGroupNCCL.cpp" and "Bootstrap: no socket interface found"\n',
     "torch/nccl-no-socket-interface", {}),
    # a structured log's "key[sub]=" field before the message
    ("err[msg]=Cannot find an appropriate cached snapshot folder for the specified revision on the local disk and "
     "outgoing traffic has been disabled. To enable repo look-ups and downloads online, pass 'local_files_only=False' "
     "as input.\n", "transformers/hub-unreachable", {}),
    # transformers 4.x's fast tokenizer asked to convert from slow with no slow class
    ("ValueError: Cannot instantiate this tokenizer from a slow version.\nIf it's based on sentencepiece, make sure "
     "you have sentencepiece installed.\n", "transformers/tokenizer-backend", {}),
    # Triton 3.0's tl.dot minimum, the "non-batch" wording, in a text that shows Triton
    ("z = tl.dot(x, y)\n\nAssertionError: All non-batch values in both first input shape ([constexpr[8], constexpr[8]]) and second input "
     "shape ([constexpr[8], constexpr[8]]) must be >= 16!\n", "triton/compilation-error", {}),
    # Metal's status code alone, in a text that names MLX
    ("# MLX backend grows Metal memory over time and aborts with `kIOGPUCommandBufferCallbackErrorOutOfMemory`\n",
     "mlx/metal-command-buffer-oom", {}),
])
def test_wordings_met_in_the_field(text, entry, values):
    [finding] = read(text)
    assert finding.id == entry and values.items() <= finding.values.items()


def test_cudas_name_for_an_illegal_address_told_in_prose():
    """sgl-project/sglang#24361: the error by its CUDA runtime name, in a text that names the engine;
    not in a text that names none, and not twice beside torch's own lines."""
    told = "sglang 0.5.10: the scheduler crashes with `cudaErrorIllegalAddress` inside `flashinfer.prefill.plan`\n"
    [finding] = read(told)
    assert finding.id == "torch/cuda-illegal-address" and finding.kind == "mention"
    assert read(told.replace("sglang 0.5.10", "our server").replace("flashinfer.prefill.plan", "the planner")) == []
    printed = ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
               "Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
               "group__CUDART__TYPES.html for more information.\n")
    assert [f.id for f in read(told + printed)] == ["torch/cuda-illegal-address"]


def test_a_message_whose_values_the_poster_left_out():
    [finding] = read("> torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ... etc\n")
    assert finding.id == "torch/cuda-oom" and finding.partial


def test_a_cjk_title_quoting_a_cut_message():
    """The message starts where CJK prose and its quotation mark give way to it, and stops short."""
    title = "# 报错“We couldn't connect to 'https://huggingface.co' to load this file.”， 需要科学上网才能加载Q-Former吗？\n"
    [finding] = read(title)
    assert finding.id == "transformers/hub-unreachable" and finding.partial


def test_the_unpicklers_line_alone_names_no_entry_for_a_real_opcode():
    """71 is 'G' (BINFLOAT), a pickle opcode early weights-only unpicklers refused: the file may be a
    real checkpoint, so the line alone says nothing of a file that is not one."""
    assert [f.id for f in read("WeightsUnpickler error: Unsupported operand 71\n")] == [None]


def test_a_message_cut_by_the_paste_names_the_entry_whose_pattern_demands_no_one_word():
    """torch's state-dict check may start with its optional "Error(s) in loading ..." line, so no
    word is demanded: a message cut mid-sentence is still read against its start."""
    text = ('  File "/x/torch/nn/modules/module.py", line 2215, in load_state_dict\n'
            "    raise RuntimeError(\n"
            "RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n"
            "        size mismatch for base_model.model.model.embed_tokens.base_layer.weight: copying a param with "
            "shape torch.Size([32005, 2048]) from checkpoint, the shap")
    [finding] = read(text)
    assert finding.id == "torch/state-dict-size-mismatch" and finding.partial


def test_a_text_that_stops_in_an_optional_lead_in_names_nothing():
    """"NCCL error: invalid usage" is the optional head of the duplicate-GPU message, not its words."""
    assert [f.id for f in read("# RuntimeError: NCCL error: invalid usage\n")] in ([], [None])


def test_a_message_cut_at_the_end_of_a_paste_folds_into_its_whole_quote():
    text = ("# Loading fails with 'ValueError: Received 605 parameters not in model'\n\n"
            "Traceback (most recent call last):\n"
            '  File "/x/mlx/nn/layers/base.py", line 185, in load_weights\n'
            "    raise ValueError(\n"
            "ValueError: Received 6")
    assert [f.id for f in read(text)] == ["mlx/load-weights-unexpected"]


def test_an_error_a_terminal_wrapped_mid_word_is_read_whole():
    """accelerate#157: the what() line wrapped at 115 columns ("... Timeout(ms)=1800000) r" / "an for
    ..."), torch 1.9's wording without a SeqNum."""
    text = ("```\n"
            "[E ProcessGroupNCCL.cpp:325] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA\n"
            "kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taki\n"
            "ng the entire process down.\n"
            "terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) r\n"
            "an for 1804582 milliseconds before timing out.\n"
            "```\n")
    [finding] = read(text)
    assert finding.id == "torch/nccl-watchdog-timeout" and finding.line == 5     # terminate called ...
    assert finding.values["ran_ms"] == "1804582" and "seq" not in finding.values


@pytest.mark.parametrize("text, entry", [
    # the location elided by the writer
    ("DDPで「RuntimeError: NCCL error in: ... unhandled cuda error」というエラーが出ます\n", "torch/nccl-cuda-error"),
    # nccl-tests' report of a failed call, and a code retyped without its colon
    ("DESKTOP: Test NCCL failure common.cu:777 'unhandled system error'\n", "torch/nccl-system-error"),
    ("paddle.utils.run_check() fails with 'RuntimeError NCCL Error 2 unhandled system error'\n", "torch/nccl-system-error"),
    # the Hub's gated-repository refusal, retyped with its URL elided and without its full stop
    ('the log said "Cannot access gated repo for url...Access to model mistralai/Mistral-7B-Instruct-v0.2 is restricted"\n',
     "transformers/repo-not-found"),
    # the Hub's answer to a fine-grained token without access to gated repositories
    ("403 Forbidden: Please enable access to public gated repositories in your fine-grained token settings to view "
     "this repository.\n", "transformers/repo-not-found"),
    # a DataLoader worker's pid written as a placeholder
    ("RuntimeError: DataLoader worker (pid xxx) is killed by signal: Bus error.\n", "process/bus-error"),
    # faulthandler's line told in prose, with a full stop
    ("the server process crashes with a Fatal Python error: Segmentation fault.\n", "process/segfault"),
    # vLLM's re-raise of the allocator's OOM in its sampler's warm-up, hard-wrapped
    ("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 \ndummy requests. Please try "
     "lowering `max_num_seqs` or `gpu_memory_utilization` when \ninitializing the engine.\n", "torch/cuda-oom"),
    # torch 0.4's numbered wording of the CUDA error
    ("RuntimeError: CUDA error (10): invalid device ordinal\n", "torch/cuda-invalid-device"),
    # torch's warning at its first CUDA call that it holds no code for the GPU, alone
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n",
     "torch/cuda-no-kernel-image"),
    # vLLM's start-up memory check and its V0 KV-cache check, retold with a part elided
    ("ValueError: Free memory on device cuda:0 (66.08/184.3 GiB) ... is less than desired GPU memory utilization "
     "(0.6, 110.58 GiB)\n", "vllm/startup-free-memory"),
    ("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in "
     "KV cache. Try increasing gpu_memory_utilization or decreasing max_model_len.\n", "vllm/kv-cache-max-seq-len-v0"),
    # the watchdog's timeout written with its sequence and its time elided
    ("Watchdog caught collective operation timeout: WorkNCCL(..., OpType=ALLREDUCE, Timeout(ms)=600000) ran for ... ms "
     "before timing out.\n", "torch/nccl-watchdog-timeout"),
    # a page's rendered markdown, which drops the backticks around `quantization`
    ("ValueError: Quantization method specified in the model config (marlin) does not match the quantization method "
     "specified in the quantization argument (gptq).\n", "vllm/quantization-mismatch"),
])
def test_wordings_retyped_on_web_pages(text, entry):
    assert [f.id for f in read(text)] == [entry]


def test_nccl_warn_lines_without_their_host_prefix_unwind_as_one_thread():
    """NCCL's WARN for the CUDA call that failed, then the WARN of the level above it, retyped
    without their host:pid:tid prefix: one error, the first line's."""
    text = ("NCCL WARN Cuda failure 'invalid argument'\n"
            "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-NzwJ7O (size 9637888)\n")
    found = read(text, all=True)
    assert [(f.id, f.root_cause) for f in found] == [("torch/nccl-cuda-error", True), (None, False)]


def test_a_launchers_tag_is_a_process_not_an_nccl_thread():
    """Two WARNs far apart, without NCCL's host:pid:tid: two failures, whether or not torchrun's
    "[rank3]: " tags both (a rank runs many threads; only NCCL's prefix tells one)."""
    text = ("NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to 4194660 bytes\n"
            + "Docker limits shared memory by default.\n" * 4
            + "NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory\n")
    tagged = "".join("[rank3]: " + line for line in text.splitlines(keepends=True))
    for log in (text, tagged):
        assert [f.root_cause for f in read(log, all=True) if f.exception == "NCCL WARN"] == [True, True]


def test_the_watchdogs_wrapper_in_torch_2_1s_words_defers_to_the_timeout_it_carries():
    """Up to torch 2.2 the watchdog's line said "NCCL watchdog thread"; a timeout it carries, even
    cut at a terminal's width, is the root cause, not the wrapper."""
    crash = ("terminate called after throwing an instance of 'std::runtime_error'\n"
             "  what():  [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: unspecified launch failure\n")
    assert [(f.id, f.root_cause) for f in read(crash, all=True)] == [
        ("torch/cuda-launch-failure", True), ("torch/nccl-watchdog-exception", False)]
    cut = ("[rank3]:[E ProcessGroupNCCL.cpp:1182] [Rank 3] NCCL watchdog thread terminated with exception: "
           "[Rank 3] Watchdog caught collective operation.\n")
    assert "torch/nccl-watchdog-exception" not in [f.id for f in read(cut, all=True)]


def test_the_watchdogs_timeout_line_of_2024s_releases():
    """"Timeout at NCCL work: ..." is logged before "Watchdog caught collective operation timeout";
    alone (a log cut, a runner's prefix) it tells the same timeout, with the sequence numbers."""
    line = ("[rank3]:[E909 09:55:46.123 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 3] Timeout at NCCL work: "
            "2070, last enqueued NCCL work: 2082, last completed NCCL work: 2069.\n")
    [finding] = read(line)
    assert finding.id == "torch/nccl-watchdog-timeout" and "#2070" in finding.summary and "#2069" in finding.summary


@pytest.mark.parametrize("lead", ["  ", "    ", "  traceback : "])
def test_a_traceback_indented_as_a_whole_is_read_with_its_frames(lead):
    """A report that nests a traceback indents every line of it: torchrun's @record table
    ("  traceback : Traceback ..."), a markdown list item, a quoted reply."""
    code = "import torch.nn as nn; nn.Linear(8, 4).load_state_dict(nn.Linear(16, 4).state_dict())"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={"ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin"})
    first, *rest = child.stderr.splitlines()
    indent = " " * (len(lead) - len(lead.lstrip()))
    text = "Root Cause (first observed failure):\n" + lead + first + "\n" + "\n".join(indent + line for line in rest)
    [finding] = read(text)
    assert finding.kind == "exception" and finding.exception == "RuntimeError"
    assert finding.id == "torch/state-dict-size-mismatch" and finding.site == "torch.nn.modules.module:load_state_dict"
    assert finding.summary.startswith("Linear.weight: the checkpoint has shape [4, 16]")


def test_an_indented_header_over_frames_printed_as_usual_is_read_as_before():
    text = ('  Traceback (most recent call last):\n  File "/srv/app.py", line 3, in <module>\n    main()\n'
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.\n")
    [finding] = read(text)
    assert finding.id == "vllm/no-kv-cache-memory" and finding.exception == "ValueError" and not finding.partial


def test_a_headless_traceback_whose_first_frame_lost_the_indentation_of_the_whole():
    """A selection that began at the first frame's text: that frame at the margin, the rest of the
    traceback indented as a whole (frames four spaces deeper than their exception line)."""
    text = ('File "python3.12/site-packages/flashinfer/jit/core.py", line 145, in load\n'
            "        loader.load_library(so_path)\n"
            '      File "/lib/python3.12/site-packages/torch/_ops.py", line 1478, in load_library\n'
            "        ctypes.CDLL(path)\n"
            '      File "/python3.12/ctypes/__init__.py", line 379, in __init__\n'
            "        self._handle = _dlopen(self._name, mode)\n"
            "                      ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            "    OSError: /root/.cache/flashinfer/90/cached_ops/sampling/sampling.so: invalid ELF header\n")
    [finding] = read(text)
    assert finding.exception == "OSError" and finding.id == "flashinfer/jit-build-failed"
    assert finding.values["workdir"] == "/root/.cache/flashinfer/90/cached_ops/sampling"


def test_torchruns_summary_of_a_worker_a_signal_ended_cut_before_its_signal_line():
    """torchrun reports a worker a signal ended as a negative exit code; the summary's
    "traceback : Signal 9 (SIGKILL) received by PID" line may be cut off the paste."""
    text = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            "============================================================\n"
            "train.py FAILED\n"
            "------------------------------------------------------------\n"
            "Root Cause (first observed failure):\n"
            "[0]:\n"
            "  time      : 2024-09-09_09:36:56\n"
            "  host      : f5735d9ffd4f\n"
            "  rank      : 7 (local_rank: 7)\n"
            "  exitcode  : -9 (pid: 3309)\n"
            "  error_file: <N/A>\n"
            "  traceback : Signal 9 (SIGKILL) receive")
    [finding] = read(text)
    assert finding.id == "process/killed" and finding.values["pid"] == "3309"


def test_a_message_quoted_with_pythons_default_log_format():
    """logging.basicConfig() writes "LEVEL:logger:message"; quoted in prose, the message is after both."""
    [finding] = read('report error "ERROR:root:Model type minicpm4 not supported."\n')
    assert finding.id == "mlx-lm/model-type-unsupported" and finding.values["model_type"] == "minicpm4"


def test_a_kernels_assertion_retyped_with_straight_quotes_and_wrapped():
    text = ("```\n/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [0,0,0], thread: [127,0,0] "
            "Assertion '-sizes[i] <= index && index < sizes[i] &&\n"
            "\"index out of bounds\"' failed.\n```\n")
    [finding] = read(text)
    assert finding.id == "torch/cuda-device-assert" and finding.values["kernel_file"] == "IndexKernel.cu"


@pytest.mark.parametrize("text, entry_id", [
    ("# Fatal python error:Bus error\n\nI deployed vllm on RTX4090 * 2 and encountered an error.\n", "process/bus-error"),
    ('every rank then died in Gloo with "Unable to find address for: <ip>".\n', "torch/gloo-interface-not-found"),
    ("Kernel builds under CUDA 13 fail with 'undefined reference to void flashinfer::BatchDecodeWithPagedKVCacheKernel'\n"
     "in generate_ninja_build_for_op (flashinfer/jit/cpp_ext.py).\n", "flashinfer/jit-build-failed"),
    # CJK prose glued to the message; a word typed without its space; CUDA's own words quoted alone
    ("使用hf进行测试的时候，报错tokenizer class Qwen2Tokenizer does not exist or is not currently imported.。这是\n",
     "transformers/tokenizer-class-unknown"),
    ("# whyCUDA out of memory. Tried to allocate 130.00 MiB (GPU 1; 7.80 GiB total capacity; 5.91 GiB already "
     "allocated; 33.56 MiB free; 6.09 GiB reserved in total by PyTorch)\n", "torch/cuda-oom"),
    ('许多开发者会遇到"invalid device ordinal"错误,这通常是由于混淆了物理设备序号和逻辑设备序号导致的。\n', "torch/cuda-invalid-device"),
    ("the invalid device ordinal was 3, though only two GPUs are visible\n", None),
])
def test_retyped_as_prose_writes_it(text, entry_id):
    """Lower case and a lost space, a placeholder for the value, a linker's words in a FlashInfer JIT
    text, a message that prose runs into, CUDA's words alone (but not in a sentence of one's own)."""
    assert [f.id for f in read(text) if f.id] == ([entry_id] if entry_id else [])


def test_a_linker_failing_beside_flashinfer_is_not_its_jit():
    """torch.compile's launcher build failing to link libcuda, in a log that also says FlashInfer is absent."""
    text = ("WARNING 04-03 [topk_topp_sampler.py:63] FlashInfer is not available. Falling back to the PyTorch-native implementation.\n"
            "/usr/bin/ld: cannot find -lcuda: No such file or directory\n"
            "collect2: error: ld returned 1 exit status\n")
    assert [f.id for f in read(text) if f.id] == []


def test_a_traceback_cut_inside_its_exceptions_module_path():
    """The paste stops at "triton.compiler.error": the class never printed, the raise line says it."""
    text = ('Traceback (most recent call last):\n'
            '  File "/site-packages/triton/compiler/code_generator.py", line 1124, in visit_Call\n'
            '    raise CompilationError(self.jit_fn.src, node, None) from e\n'
            'triton.compiler.error')
    [finding] = read(text)
    assert finding.id == "triton/compilation-error" and finding.partial


def test_a_loggers_name_and_pid_under_a_collectors_tag():
    """Three tags deep: stern's pod and container, then the program's logger and its pid; the
    error line is the traceback's lead-in, as in the bare log."""
    bare = ("2025-04-01 17:09:20,955 xinference.core.worker 140 INFO     Enter launch_builtin_model\n"
            "2025-04-01 17:09:25,120 xinference.core.worker 140 ERROR    Failed to load model qwen2.5-instruct-0\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.10/dist-packages/xinference/core/worker.py", line 911, in launch_builtin_model\n'
            "    model_ref = await xo.create\n")
    stern = "".join(f"\x1b[32mvllm-7d9f8-abcde\x1b[0m \x1b[34mvllm\x1b[0m {line}" for line in bare.splitlines(True))
    assert [(f.kind, f.message) for f in read(stern, all=True)] == [(f.kind, f.message) for f in read(bare, all=True)]
    assert [f.kind for f in read(bare, all=True)] == ["exception"]


@pytest.mark.parametrize("text, entry", [
    ("a/b · issue #7 · open\n# [Bug] deepseekr1 illegal memory access on 2*8*H20\n", "torch/cuda-illegal-address"),
    ("a/b · issue #8 · open\n# Triton attention: no longer an illegal memory access after the fix\n", None),
    # the title's words only; a body that prints the error that happened says what it was
    ("a/b · issue #9 · open\n# GLM4.5 raises illegal memory access (IMA)\n\n"
     "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1478: indexSelectSmallIndex: block: [16,0,0], thread: [0,0,0] "
     "Assertion `srcIndex < srcSelectDimSize` failed.\n", "torch/cuda-device-assert"),
    ("x · comment\nthen an illegal memory access showed up in the next step\n", None),      # prose, not a title
])
def test_a_title_names_an_error_by_its_usual_words(text, entry):
    found = [f.id for f in read(text) if f.id]
    assert found == ([entry] if entry else [])


def test_a_quote_left_open_where_the_paste_ends():
    """An index or a collector cut the paste inside a quoted message: the quote never closes."""
    said = 'Running the notebook will result in "ValueError: Bfloat16 is only supported on GPUs with compute ca'
    [found] = read(said)
    assert (found.id, found.partial) == ("vllm/bf16-compute-capability", True)
    typed = 'but still got \n"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 106496, '
    assert [f.id for f in read(typed)] == ["triton/oor-shared-memory"]
    # on a line the paste goes on after, the open quote is the writer's, not the cut's
    assert not any(f.id for f in read(said + "\nThanks for any help with this.\n"))


def test_a_message_cut_after_the_words_its_pattern_starts_from():
    """The pattern looks for the message's distinctive middle ("has model type ... but Transformers
    does not recognize"); a cut in that middle still shows its start."""
    text = ('Traceback (most recent call last):\n  File "load.py", line 3, in <module>\n'
            'ValueError: The checkpoint you are trying to load has model type `glm4` but Transformers d')
    [found] = read(text)
    assert (found.id, found.partial) == ("transformers/unknown-model-type", True)
    assert found.values.get("model_type") == "glm4"


def test_a_message_cut_inside_what_its_pattern_looks_ahead_for():
    """torch 1.x's OOM goes on " (GPU 0; ..." where the pattern looks ahead for it: a cut there."""
    text = ('Traceback (most recent call last):\n  File "run.py", line 9, in <module>\n'
            'OutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 GiB (GP')
    [found] = read(text)
    assert (found.id, found.partial) == ("torch/cuda-oom", True)


def test_vscode_notebooks_link_the_source_line_numbers():
    text = (
        "KeyError                                  Traceback (most recent call last)\n"
        "File /usr/local/lib/python3.10/dist-packages/transformers/models/auto/configuration_auto.py:951, "
        "in AutoConfig.from_pretrained(cls, pretrained_model_name_or_path, **kwargs)\n"
        "    [950](vscode-remote://x/usr/local/lib/python3.10/dist-packages/transformers/models/auto/"
        "configuration_auto.py:950) try:\n"
        "--> [951](vscode-remote://x/usr/local/lib/python3.10/dist-packages/transformers/models/auto/"
        "configuration_auto.py:951)     config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]\n")
    assert [f.id for f in read(text)] == ["transformers/unknown-model-type"]


@pytest.mark.parametrize("text, entry", [
    # a robot framework's own dataclass (tests/fixtures/corpus/transformers/776.log): no model config
    ("AttributeError: 'LeapHandConfig' object has no attribute 'environment'\n", None),
    # a field every model config has, read from a remote-code config
    ("AttributeError: 'LLaDAConfig' object has no attribute 'num_key_value_heads'\n",
     "transformers/config-missing-attribute"),
    # any field, where the text shows transformers' config at work
    ("  File \"/usr/lib/python3/site-packages/transformers/configuration_utils.py\", line 211, in __getattribute__\n"
     "    return super().__getattribute__(key)\n"
     "AttributeError: 'OvisConfig' object has no attribute 'llm_head_dim'\n", "transformers/config-missing-attribute"),
])
def test_a_config_without_a_field_is_a_model_configs_only_in_its_context(text, entry):
    """Other projects name their settings "...Config" too: the entry's ``context``."""
    assert [f.id for f in read(text) if f.id] == ([entry] if entry else [])


@pytest.mark.parametrize("title, entry", [
    # the writer's words, a colon, then vLLM's message in lower case and cut (corpus vllm/942.log)
    ("# [CI Failure]: Model test fails when the instance starts up: free memory on device cuda:0 "
     "(46.95/79.18 GiB) on startup is less than desired GPU memory utilization (0.6, ", "vllm/startup-free-memory"),
    # lower case that is the writer's own sentence, not a message
    ("# [Bug]: server starts up: free memory looks low on device cuda:0\n", None),
])
def test_a_title_that_goes_on_with_a_message_in_lower_case(title, entry):
    assert [f.id for f in read(title + "\n") if f.id] == ([entry] if entry else [])


@pytest.mark.parametrize("text, entry", [
    ("RuntimeError: Triton Error [CUDA]: an illegal instruction was encountered\n", "torch/cuda-illegal-instruction"),
    ("RuntimeError: cuda runtime error (73) : an illegal instruction was encountered at "
     "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265\n", "torch/cuda-illegal-instruction"),
    ("# [Bug]: CUDA error: an illegal instruction was encountered with FP4 MoE on a GB10\n",
     "torch/cuda-illegal-instruction"),
    ("Illegal instruction (core dumped)\n", "process/illegal-instruction"),     # the CPU's SIGILL, another error
])
def test_an_illegal_instruction_on_the_gpu_and_on_the_cpu(text, entry):
    assert [f.id for f in read(text) if f.id] == [entry]


@pytest.mark.parametrize("message, entry", [
    ("CUDA driver error: out of memory", "torch/cuda-error-oom"),
    ("CUDA driver error: an illegal memory access was encountered", "torch/cuda-illegal-address"),
    ("CUDA driver error: unspecified launch failure", "torch/cuda-launch-failure"),
])
def test_torchs_check_of_a_driver_api_call_words_cudas_errors_its_way(message, entry):
    """c10/cuda/driver_api.h: "CUDA driver error: " and the driver's string for the error."""
    assert [f.id for f in read(f"RuntimeError: {message}\n") if f.id] == [entry]


@pytest.mark.parametrize("text, entry", [
    # NCCL 2.27 connecting to the address it never filled in: no interface matched NCCL_SOCKET_IFNAME
    ("NCCL WARN ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n",
     "torch/nccl-no-socket-interface"),
    # an AF_UNIX address that reached NET/Socket: the internal error around it, not a missing interface
    ("NCCL WARN ncclSocketInit: connecting to address  with family 1 is neither AF_INET(2) nor AF_INET6(10)\n",
     None),
    # the same words as a title, where the cut-short reading must not stop before the family
    ("# ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor AF_INET6(10)\n", None),
])
def test_the_address_family_ncclsocketinit_refuses_says_which_error(text, entry):
    assert [f.id for f in read(text) if f.id] == ([entry] if entry else [])


def test_a_title_that_keeps_only_the_tail_of_the_store_bind_failure():
    """c10d joins libuv's errno name and words ("name: EADDRINUSE, message: address already in use");
    a title may keep that tail alone. Node's "listen EADDRINUSE: address already in use" is not it."""
    body = "\n```\nRuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n```\n"
    [finding] = read("# vLLM engine fails to restart after a crash due to - EADDRINUSE, message: address already in use\n"
                     + body)
    assert finding.id == "torch/tcpstore-port-in-use"
    assert read("# dev server fails: Error: listen EADDRINUSE: address already in use :::3000\n" + body)[0].id != \
        "torch/tcpstore-port-in-use"


def test_an_exception_line_cut_after_the_allocators_class():
    """A paste cut right after "torch.OutOfMemoryError:" (here printed into a progress bar's line)
    still names the allocator's error by its class; the bar is no lead-in to read."""
    text = ('Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%|██▎      | 1/58 [00:00<00:56,  1.01it/s]'
            'Traceback (most recent call last):\n'
            '  File "/venv/lib/python3.10/site-packages/torch/fx/graph_module.py", line 400, in __call__\n'
            '    return super(self.cls, obj).__call__(*args, **kwargs)\n'
            'torch.OutOfMemoryError: \n')
    [finding] = read(text)
    assert finding.id == "torch/cuda-oom" and finding.partial and finding.message == ""
    [finding] = read(text.replace("torch.OutOfMemoryError: ", "torch.cuda.OutOfMemoryError:"))
    assert finding.id == "torch/cuda-oom"
    [finding] = read(text.replace("torch.OutOfMemoryError: ", "torch.OutOfMemoryError: XPU out of memory."))
    assert finding.id is None


def test_a_c10d_line_cut_mid_word_behind_its_component_tag():
    [finding] = read("[E108 20:04:34.467642512 socket.cpp:957] [c10d] The client socket has timed out after 900s whi\n")
    assert finding.id == "torch/tcpstore-connect-timeout" and finding.partial


def test_a_sentence_that_ends_on_a_modules_class_and_a_colon_is_no_exception():
    """Lua Torch's "In 1 module of nn.Sequential:" introduces its stack; an error class mid-line
    with its message cut away still is one."""
    assert read("In 1 module of nn.Sequential:\n") == []
    [finding] = read("the run ended with torch.OutOfMemoryError:\n")
    assert finding.exception == "torch.OutOfMemoryError"
