"""Words that are an entry's error only where the text shows its program at work (the catalog's
``match.in_text``): FlashInfer's JIT build failing in nvcc's, ninja's or torch's words."""

import io
import re

import pytest

from enrich.logs import findings

# flashinfer 0.2.x built its kernels through torch's cpp_extension: the failure is torch's
# CalledProcessError for ninja, and only the logger's lines above say whose build it was
TORCH_BUILD = """\
2025-03-05 10:12:44,117 - INFO - flashinfer.jit: Prebuilt kernels not found, using JIT backend
2025-03-05 10:12:44,118 - INFO - flashinfer.jit: Loading JIT ops: sampling
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/torch/utils/cpp_extension.py", line 2209, in _run_ninja_build
    subprocess.run(
  File "/usr/lib/python3.12/subprocess.py", line 571, in run
    raise CalledProcessError(retcode, process.args,
subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.
"""

# an issue titled with nvcc's own error over the JIT's compile command
NVCC_TITLE = """\
# nvcc fatal : Unsupported gpu architecture 'compute_90a'

/usr/local/cuda/bin/nvcc -isystem /usr/local/lib/python3.10/dist-packages/flashinfer/data/include \
-gencode=arch=compute_90a,code=sm_90a -c single_decode.cu -o single_decode.cuda.o
"""

# ninja's lines relative to the JIT directory, under docker compose's and vLLM's prefixes
RELATIVE = """\
vllm-1  | (EngineCore_DP0 pid=143) ERROR 11-26 21:20:36 [core.py:842] ninja: Entering directory \
`/root/.cache/flashinfer/0.5.2/120f/cached_ops'
vllm-1  | (EngineCore_DP0 pid=143) ERROR 11-26 21:20:36 [core.py:842] FAILED: [code=1] \
fp4_gemm_cutlass_sm120/fp4_gemm_cutlass.cuda.o
vllm-1  | (EngineCore_DP0 pid=143) ERROR 11-26 21:20:36 [core.py:842] ninja: build stopped: subcommand failed.
"""


def found(text: str) -> list:
    return [f for f in findings(io.StringIO(text))]


def test_torchs_ninja_failure_is_flashinfers_build_where_its_jit_is_shown():
    [finding] = found(TORCH_BUILD)
    assert finding.id == "flashinfer/jit-build-failed"
    assert finding.exception == "subprocess.CalledProcessError"     # the error as printed, now explained


def test_the_same_words_without_flashinfer_at_work_are_not_its():
    """Another extension's build fails with torch's words too; a package list naming flashinfer
    does not show its JIT."""
    other = TORCH_BUILD.replace("flashinfer.jit: Prebuilt kernels not found, using JIT backend",
                                "flashinfer-python 0.2.5").replace("flashinfer.jit: Loading JIT ops: sampling",
                                                                   "Building extension module exllama_ext...")
    assert [f.id for f in found(other)] == [None]
    vllm_build = RELATIVE.replace("/root/.cache/flashinfer/0.5.2/120f", "/src/vllm/build")
    assert found(vllm_build) and not any(f.id for f in found(vllm_build))


def test_nvccs_own_error_in_a_title_over_the_jit_command():
    [finding] = found(NVCC_TITLE)
    assert finding.id == "flashinfer/jit-build-failed"
    assert "Unsupported gpu architecture 'compute_90a'" in finding.summary


def test_a_failed_step_relative_to_the_jit_directory_names_its_target():
    roots = found(RELATIVE)
    assert [f.id for f in roots] == ["flashinfer/jit-build-failed"]
    assert "fp4_gemm_cutlass_sm120/fp4_gemm_cutlass.cuda.o" in roots[0].summary


def test_a_message_the_entry_knows_by_its_own_words_is_unchanged():
    """Where FlashInfer's own message is printed, it is read as before; in-text words add nothing."""
    text = NVCC_TITLE + "RuntimeError: Could not find nvcc and default cuda_home='/usr/local/cuda' doesn't exist\n"
    assert [f.id for f in found(text)] == ["flashinfer/nvcc-not-found"]


def test_a_tensor_name_keyerror_is_sglangs_lookup_where_its_scheduler_is_shown():
    """sglang's load_weights looks each checkpoint tensor up unguarded: a title quoting the KeyError,
    over a scheduler traceback cut before load_weights, is that lookup; in another text it is not."""
    title = "# [Bug] KeyError: 'model.layers.3.mlp.shared_experts.down_proj.weight_scale'\n\n"
    scheduler = ("[2025-05-06 03:12:44 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
                 '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2215, in run_scheduler_process\n')
    [finding] = [f for f in found(title + scheduler) if f.id]
    assert finding.id == "sglang/load-weights-unknown-tensor"
    assert finding.values["name"] == "model.layers.3.mlp.shared_experts.down_proj.weight_scale"
    assert not [f.id for f in found(title) if f.id]
    expert = title.replace("model.layers.3.mlp.shared_experts.down_proj.weight_scale", "model.layers.15.mlp.experts.w2_weight")
    assert [f.id for f in found(expert + scheduler) if f.id] == ["sglang/load-weights-unknown-tensor"]
    assert "sglang/load-weights-unknown-tensor" not in [   # a key that names no tensor
        f.id for f in found("# [Bug] KeyError: 'qwen3'\n\n" + scheduler)]


def test_a_large_log_shows_the_program_in_the_lines_read_near_its_errors():
    """A log past the paste size is read near trigger words only; those lines still show whose
    build failed (the logger's line just before the traceback, the JIT directory of ninja's step)."""
    from enrich.logs.findings import PASTE

    filler = "INFO 2025-03-05 10:12:43 served request in 0.12 s\n" * (PASTE // 48 + 1000)
    assert len(filler) > PASTE
    [finding] = found(filler + TORCH_BUILD)
    assert finding.id == "flashinfer/jit-build-failed"
    roots = found(filler + RELATIVE + filler)
    assert [f.id for f in roots] == ["flashinfer/jit-build-failed"]
    other = TORCH_BUILD.replace("flashinfer.jit", "exllama.build")
    assert [f.id for f in found(filler + other)] == [None]


def test_a_large_log_keeps_the_first_lines_read_only():
    """The lines kept for what they show are bounded, and they are the first ones read."""
    from enrich.logs.stream import BLOCK, KEPT, scan

    line = "ERROR 2025-03-05 10:12:43 request {:06d} failed\n"
    lines = KEPT + BLOCK // len(line) + 10      # past the bound by more than one block
    kept: list[tuple[int, str]] = []
    scan(io.StringIO("".join(line.format(n) for n in range(lines))), kept)
    assert len(kept) == KEPT
    assert kept[0] == (1, "request 000000 failed")
    assert kept[-1] == (KEPT, f"request {KEPT - 1:06d} failed")


def test_a_text_that_says_whose_build_failed_in_prose():
    """The poster names FlashInfer; the compiler's and ninja's lines are its JIT build failing."""
    text = ("SGLang on 2x T4: FlashInfer is compiling a CUDA kernel at the first request and fails:\n"
            "/usr/bin/ld: cannot find -lcuda: No such file or directory\n"
            "collect2: error: ld returned 1 exit status\n"
            "ninja: build stopped: subcommand failed.\n")
    assert [f.id for f in found(text)] == ["flashinfer/jit-build-failed"]
    listed = text.replace("FlashInfer is compiling a CUDA kernel", "flashinfer-python 0.2.5 installed; the build")
    assert not any(f.id for f in found(listed))       # a package list's name and version say nothing


def test_sglangs_own_jit_kernels_fail_in_the_same_words():
    """sglang 0.5.9 builds its own kernels (sglang/jit_kernel) with nvcc: a text that shows those and
    not FlashInfer's JIT is not FlashInfer's build, though it names flashinfer-jit-cache."""
    text = ("SGLang 0.5.8 used pre-compiled kernels from flashinfer-jit-cache; 0.5.9 builds its RoPE kernels\n"
            "in sglang/jit_kernel/rope.py through tvm_ffi at CUDA graph capture:\n"
            "RuntimeError: ninja exited with status 127\n"
            "/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found\n")
    assert not any(f.id for f in found(text))
    ours = text + "INFO flashinfer.jit: Loading JIT ops: sampling\n"     # FlashInfer's JIT at work too
    assert "flashinfer/jit-build-failed" in [f.id for f in found(ours)]


def test_nvccs_count_of_errors_in_a_text_that_names_flashinfer():
    line = ('1 error detected in the compilation of "/home/u/.cache/flashinfer/90/generated/'
            'batch_mla_attention_dtype_q_bf16_sm90/batch_mla_sm90_plan.cu".\n')
    assert [f.id for f in found(line)] == ["flashinfer/jit-build-failed"]
    other = line.replace(".cache/flashinfer/90/generated", "src/exllamav2/ext_c")
    assert not any(f.id for f in found(other))


def test_a_tensors_keyerror_in_a_text_that_names_sglang():
    """The same lookup raised by vLLM's load_weights is not sglang's; a package list naming sglang
    says nothing of who raised it."""
    error = "KeyError: 'model.layers.8.self_attn.kv_a_proj_with_mqa.weight'\n"
    said = "With sglang the AWQ checkpoint now fails with\n"
    assert [f.id for f in found(said + error)] == ["sglang/load-weights-unknown-tensor"]
    assert not any(f.id for f in found("sglang 0.4.1\ntorch 2.5.1\n" + error))
    vllm = ('  File "/usr/lib/python3/site-packages/vllm/model_executor/models/qwen2.py", line 416, in load_weights\n'
            "    param = params_dict[name]\n")
    assert not any(f.id for f in found(said + "Traceback (most recent call last):\n" + vllm + error))


@pytest.mark.parametrize("text, entry, elsewhere", [
    ("when I run sglang with flashinfer there is an error: CUDA_HOME environment variable is not set\n",
     "flashinfer/nvcc-not-found", "torch/cpp-extension-no-cuda-home"),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'nvcc' while FlashInfer builds sampling\n",
     "flashinfer/nvcc-not-found", None),
    ("FlashInfer JIT compilation of cached_ops/sampling fails: CUDA compiler and toolkit headers are incompatible\n",
     "flashinfer/jit-build-failed", None),
])
def test_torchs_and_ccccls_words_in_a_text_that_names_flashinfer(text, entry, elsewhere):
    """In a text that names FlashInfer, these words are its JIT build's; elsewhere they are another
    program's (torch's CUDA_HOME check, which apex's build raises too) or nobody's."""
    assert [f.id for f in found(text)] == [entry]
    assert [f.id for f in found(re.sub("(?i)flashinfer", "apex", text)) if f.id] == ([elsewhere] if elsewhere else [])


def test_a_quote_of_torchs_words_in_a_thread_about_flashinfer():
    """Quoted in a title, torch's CUDA_HOME check is FlashInfer's nvcc lookup when the text shows
    FlashInfer at work, and is not given twice."""
    text = ('# how to fix "CUDA_HOME environment variable is not set" in docker\n\n'
            "with the runtime image, flashinfer needs nvcc to build its kernels\n")
    assert [f.id for f in found(text)] == ["flashinfer/nvcc-not-found"]
    assert [f.id for f in found(text.replace("flashinfer", "apex"))] == ["torch/cpp-extension-no-cuda-home"]


def test_flashinfers_ninja_call_with_its_build_directory():
    """FlashInfer's own run_ninja (0.4 on) passes the JIT directory; the paste may stop inside it."""
    text = ("[2025-08-26 10:10:16] Scheduler hit an exception: Traceback (most recent call last):\n"
            "subprocess.CalledProcessError: Command '['ninja', '-v', '-C', '/home/u/.cache/flashinfer/89/cached_ops', "
            "'-f', '/home/u/.cache/flash\n")
    assert [f.id for f in found(text)] == ["flashinfer/jit-build-failed"]


def test_a_program_named_next_to_cjk_prose():
    """Words are ASCII: a name CJK prose runs into ("vllm报错") is still the name."""
    error = "vllm报错RuntimeError: An attempt has been made to start a new process before the current process has finished its bootstrapping phase.\n"
    assert [f.id for f in found(error)] == ["vllm/spawn-main-guard"]
    assert not any(f.id for f in found(error.replace("vllm报错", "报错")))


def test_ptxas_words_without_its_name_where_torch_compile_is_at_work():
    """inductor's GPU kernels are Triton's: ptxas's refusal of the GPU, retyped without ptxas's name,
    is Triton's in a text that shows torch.compile; in a text of XLA's it is not."""
    text = "torch.compile on an RTX 4090 with cu116: I got Value 'sm_89' is not defined for option 'gpu-name'\n"
    [finding] = found(text)
    assert finding.id == "triton/ptxas-unknown-arch" and finding.values["arch"] == "sm_89"
    assert not any(f.id for f in found(text.replace("torch.compile", "jax.jit").replace("cu116", "jaxlib 0.4")))


def test_a_title_with_sgl_kernels_undefined_torch_symbol_without_its_library_path():
    """The symbol after the words "sgl_kernel undefined symbol" is sgl-kernel's; after another
    library's path it is that library's."""
    title = "# [Bug] Import error sgl_kernel undefined symbol: _ZN3c104cuda9SetDeviceEab\n"
    assert [f.id for f in found(title)] == ["sglang/sgl-kernel-undefined-symbol"]
    other = ("import sgl_kernel works, flash-attn does not:\n"
             "ImportError: /x/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEab\n")
    assert [f.id for f in found(other)] == [None]


def test_an_identifier_the_compiler_did_not_know_in_a_text_that_names_flashinfer():
    """nvcc's 'identifier "X" is undefined', retold, is FlashInfer's build failing in a text that
    names it; not where the text shows FlashInfer's headers vendored into another build."""
    told = "FlashInfer JIT compilation fails with \"identifier 'entry' is undefined\" when enabling the profiler\n"
    assert [f.id for f in found(told)] == ["flashinfer/jit-build-failed"]
    vendored = ("Rebuilding my kernels after bumping FlashInfer fails:\n"
                "kernels/third_party/flashinfer/include/flashinfer/attention/../fastdiv.cuh(39): error: "
                "identifier \"impl_\" is undefined\n")
    assert [f.id for f in found(vendored)] == [None]


def test_ninjas_own_error_in_a_text_that_names_flashinfer():
    """ninja's "ninja: error: ..." (two processes sharing one JIT directory) is FlashInfer's build
    failing where the text names FlashInfer; alone it is any ninja build's."""
    error = "concurrent FlashInfer JIT builds fail with `ninja: error: opening build log: No such file or directory`\n"
    assert [f.id for f in found(error)] == ["flashinfer/jit-build-failed"]
    assert [f.id for f in found("make fails: ninja: error: opening build log: No such file or directory\n")] == [None]


def test_sglangs_memory_error_cut_after_its_first_sentence_where_its_log_shows_sglang():
    """sglang's model runner logs "Load weight end. avail mem=..."; under it, "Not enough memory."
    is sglang's pool check cut after its first sentence, and a checkpoint tensor's KeyError its
    lookup. Without sglang at work the words are anyone's."""
    log = ("PP0: Load weight end. avail mem=13.12 GB, mem usage=64.54 GB\n"
           "RuntimeError: Not enough memory.\n")
    assert [f.id for f in found(log)] == ["sglang/not-enough-memory"]
    assert [f.id for f in found("RuntimeError: Not enough memory.\n")] == [None]
    keyerror = "PP1: Load weight end. avail mem=13.12 GB\nKeyError: 'model.layers.13.mlp.experts.w2_weight'\n"
    assert [f.id for f in found(keyerror)] == ["sglang/load-weights-unknown-tensor"]


@pytest.mark.parametrize("words", [
    "AssertionError: First input (fp16) and second input (fp32) must have the same dtype!",    # Triton 2.x
    "AssertionError: Input shapes should have M >= 16, N >= 16 and K >= 16",                  # Triton 3.x
])
def test_tritons_dot_checks_in_a_text_that_shows_a_kernel(words):
    kernel = "@triton.jit\ndef attn_fwd(Q, K, V):\n    acc = tl.dot(q, k)\n"
    assert [f.id for f in found(kernel + words + "\n")] == ["triton/compilation-error"]
    assert not any(f.id for f in found(words + "\n"))       # no Triton at work: whose dot?
