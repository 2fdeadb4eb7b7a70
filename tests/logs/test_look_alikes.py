"""Text that looks like a catalog message and is not its error, and text that is, though it does
not look it: the same words from other code, a title that quotes a different message, a line
that ended, full-width punctuation, a launcher's summary of a signal."""

import io

import pytest

from enrich.logs import findings


def ids(text: str) -> list[str]:
    return [f.id for f in findings(io.StringIO(text)) if f.id]


COLOSSAL = '''# [BUG]: AssertionError: 96 is not divisible by 64

Traceback (most recent call last):
  File "/opt/conda/lib/python3.8/site-packages/titans/layer/attention/gpt_attention.py", line 49, in forward
    all_head_size = divide(self.hidden_size, self.num_heads)
  File "/opt/conda/lib/python3.8/site-packages/colossalai/nn/layer/utils/common.py", line 52, in divide
    assert numerator % denominator == 0, \\
AssertionError: 96 is not divisible by 64
'''


def test_an_assert_with_the_same_words_in_another_package_is_not_the_entrys():
    """sglang's divide asserts "N is not divisible by M"; so does ColossalAI's: its raise frame says whose."""
    assert ids(COLOSSAL) == []
    sglang = COLOSSAL.replace("colossalai/nn/layer/utils/common.py", "sglang/srt/distributed/utils.py")
    assert ids(sglang) == ["sglang/not-divisible"]


def test_a_title_that_quotes_another_message_whole_is_not_cut_to_fit():
    assert ids("# ptxas fatal : Value 'sm_30' is not defined for option 'gpu-name'\n\nnvcc -arch=sm_30 x.cu\n") == []
    assert ids("# ptxas fatal : Value 'sm_121a' is not defined for option 'gpu-name'\n") == ["triton/ptxas-unknown-arch"]


def test_a_tensor_name_an_entrys_checks_start_with_is_not_their_message():
    """sglang's GDN launcher checks "`A_log` must ...": a report's title naming `A_log` says nothing
    of those checks (FlashInfer's CuTe alignment check, tests/fixtures/corpus/flashinfer/972.log)."""
    assert ids("# BF16 GDN decode rejects naturally aligned `A_log` and `dt_bias` views\n") == []


def test_a_title_word_that_one_of_a_patterns_openings_starts_with_is_not_a_message_start():
    """sglang's retraction notice "Decode out of memory happened" starts as the KV pool's error
    ("Decode out of memory. Try to lower your batch size."): in a title, that is the notice."""
    assert ids("# [Bug] PD Disaggregation benchmark hang after Decode out of memory happened\n") == []


def test_another_name_triton_does_not_export_is_not_the_triton_key_mismatch():
    """Inductor's triton_key import is one entry; any other name an import misses is not, nor is a
    title cut before the name."""
    assert ids("# ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'\n") == []
    assert ids("# [Bug] ImportError: cannot import name\n") == []
    assert ids("# ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'\n") == [
        "torch/inductor-triton-mismatch"]


def test_a_name_joined_by_an_underscore_is_no_other_form_of_a_messages_word():
    """transformers says "does not appear to have a file named config.json" for a missing config;
    a remote-code module named "configuration_deepseek.py" is another file, not "config" retyped."""
    assert ids("# OSError: /models/deepseek-r1 does not appear to have a file named configuration_deepseek.py.\n") == []
    assert ids("# OSError: ./out does not appear to have a file named config.json. Checkout\n") == [
        "transformers/no-model-type"]


def test_a_title_is_not_shortened_back_over_the_reason_after_a_colon():
    other = ("# libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] "
             "Command buffer execution failed: Invalid Resource (00000009:kIOGPUCommandBufferCallbackErrorInvalidResource)\n")
    assert ids(other) == []
    assert ids("# [METAL] Command buffer execution failed: Insufficient Memory on an M2 with 16 GB\n") == \
        ["mlx/metal-command-buffer-oom"]


def test_a_line_that_ended_with_a_full_stop_is_not_a_cut_message():
    """vLLM logs the free memory it found at start-up; only "... on startup is less than ..." is the error."""
    assert ids("```\nFree memory on device (110.37/121.69 GiB) on startup.\nDesired GPU memory utilization is (0.87, 105.87 GiB).\n```\n") == []
    assert ids("Free memory on device (110.37/121.69 GiB) on startup...\n") == ["vllm/startup-free-memory"]


def test_full_width_punctuation_reads_as_ascii():
    assert ids("# [Bug]: about NCCL error：unhandled system error\n") == ["torch/nccl-system-error"]


def test_typographic_quotes_read_as_the_straight_ones_printed():
    title = "# 报错 OSError: We couldn‘t connect to ‘https://huggingface.co‘ to load this file\n"
    assert ids(title) == ["transformers/hub-unreachable"]


def test_japanese_corner_brackets_quote_a_message():
    prose = "Gunicornの--preloadで「RuntimeError: Cannot re-initialize CUDA in forked subprocess」が発生します。\n"
    assert ids(prose) == ["torch/cuda-forked-subprocess"]


def test_urllib3s_timeout_connecting_to_the_hub():
    text = ("urllib3.exceptions.ConnectTimeoutError: (<urllib3.connection.HTTPSConnection object at 0x7f>, "
            "'Connection to {} timed out. (connect timeout=10)')\n")
    assert ids(text.format("huggingface.co")) == ["transformers/hub-unreachable"]
    assert ids(text.format("pypi.org")) == []


def test_the_hubs_refusal_of_a_repositorys_file_not_of_a_token():
    """opea-project/GenAIExamples#2237: requests raises the Hub's 401 for a gated model's config.json,
    in a traceback through huggingface_hub; modal-labs' 401 is the Hub's login check refusing a token."""
    text = ('Traceback (most recent call last):\n'
            '  File "/venv/site-packages/huggingface_hub/utils/_http.py", line 409, in hf_raise_for_status\n'
            '    response.raise_for_status()\n'
            '  File "/venv/site-packages/requests/models.py", line 1026, in raise_for_status\n'
            '    raise HTTPError(http_error_msg, response=self)\n'
            'requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/{}\n')
    gated = "meta-llama/Meta-Llama-3-8B-Instruct/resolve/main/config.json"
    assert ids(text.format(gated)) == ["transformers/repo-not-found"]
    assert ids(text.format("api/whoami-v2")) == []


def test_vllms_hub_probe_logged_as_an_error_and_survived():
    """vllm-project/vllm#33545: vLLM asks the Hub for a local path's safetensors metadata, logs the
    refusal at ERROR and goes on without it (try_get_safetensors_metadata returns None)."""
    line = ("(APIServer pid=3185427) ERROR 02-02 14:28:39 [repo_utils.py:47] Error retrieving safetensors: Repo id "
            "must be in the form 'repo_name' or 'namespace/repo_name': '/data/models/Qwen/Qwen3-ASR-1.7B'. "
            "Use `repo_type` argument if needed., retrying 1 of 2\n")
    assert ids(line) == []
    assert ids(line.replace("Error retrieving safetensors: ", "")) == ["transformers/model-path-not-found"]


def test_a_title_cut_mid_phrase_two_words_after_its_colon_is_not_a_message_start():
    """kvcache-ai/ktransformers#208: "invalid device function" is not "invalid device ordinal" cut
    before the writer's words; "Bus error", complete two words after the colon, still is its error."""
    assert ids("# RuntimeError: CUDA error: invalid device function For first message\n") == []
    assert ids("# [Bug] Fatal Python error: Bus error when loading safetensors check point shards.\n") == \
        ["process/bus-error"]


def test_torchrun_summary_of_a_child_killed_by_a_signal():
    summary = '''torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
serve.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_21:52:30
  host      : node-3
  rank      : 0 (local_rank: 0)
  exitcode  : {code} (pid: 1017)
  error_file: <N/A>
  traceback : Signal {signal} ({name}) received by PID 1017
============================================================
'''
    assert ids(summary.format(code=-9, signal=9, name="SIGKILL")) == ["process/killed"]
    assert ids(summary.format(code=-11, signal=11, name="SIGSEGV")) == ["process/segfault"]
    assert ids(summary.format(code=-6, signal=6, name="SIGABRT")) == ["process/native-abort"]
    assert ids(summary.format(code=-15, signal=15, name="SIGTERM")) == []
    # the summary's line quoted alone, in a title
    assert ids("# Signal 9 (SIGKILL) received by PID 394968\nany update?\n") == ["process/killed"]


def test_mlx_vlm_copy_of_the_no_safetensors_check():
    text = '''ERROR:root:No safetensors found in /Users/me/.cache/huggingface/hub/models--x--vila/snapshots/ab33
Traceback (most recent call last):
  File "/Users/me/envs/mlx/lib/python3.12/site-packages/mlx_vlm/generate.py", line 69, in main
    model, processor = load(args.model)
  File "/Users/me/envs/mlx/lib/python3.12/site-packages/mlx_vlm/utils.py", line 121, in load_model
    raise FileNotFoundError(message)
FileNotFoundError: 
No safetensors found in /Users/me/.cache/huggingface/hub/models--x--vila/snapshots/ab33
Create safetensors using the following code:
'''
    assert ids(text) == ["mlx-lm/no-safetensors"]


def test_a_name_quoted_in_a_title_is_not_a_cut_message():
    """LightLLM's own head check quotes config["num_attention_heads"]: one word is no message's start."""
    title = '# [BUG] Assertation error self.config["num_attention_heads"] % self.world_size_ == 0 when not divisible\n'
    assert ids(title) == []


OLD_WEIGHTS_ONLY = """_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options 
\t(1) Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
\tWeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default. Please use `torch.serialization.add_safe_globals([Namespace])` to allowlist"""


def test_a_cut_message_is_not_claimed_through_a_wildcard_after_a_few_words():
    """torch 2.4's wording of the weights-only refusal, cut: the entry whose pattern reads "Weights only
    load failed." and then anything is no evidence; the global's own entry is."""
    assert ids(OLD_WEIGHTS_ONLY) == ["torch/load-weights-only-global"]
    other = OLD_WEIGHTS_ONLY.split(" This file")[0] + " Something else entirely happened while unpickling"
    assert ids(other) == []


def test_a_compiler_error_is_known_only_in_the_entrys_sources():
    flashinfer = ("/opt/conda/lib/python3.11/site-packages/flashinfer/data/include/flashinfer/utils.cuh:21:10: "
                  "fatal error: cuda_fp8.h: No such file or directory\ncompilation terminated.\n")
    assert ids(flashinfer) == ["flashinfer/jit-build-failed"]
    other = flashinfer.replace("flashinfer/data/include/flashinfer", "tvm/include/tvm")
    assert ids(other) == []
    assert [f for f in findings(io.StringIO(other))] == []      # a compiler line no entry knows stays quiet


DEAD_SCHEDULER = '''[2025-03-01 10:11:12] Rank 0 scheduler is dead. Please check if there are relevant logs.
[2025-03-01 10:11:13] Exit code: -9
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/sglang/launch_server.py", line 14, in <module>
    launch_server(server_args)
  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/entrypoints/http_server.py", line 679, in launch_server
    tokenizer_manager, scheduler_info = _launch_subprocesses(server_args=server_args)
  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/entrypoints/engine.py", line 589, in _launch_subprocesses
    data = scheduler_pipe_readers[i].recv()
  File "/usr/lib/python3.10/multiprocessing/connection.py", line 250, in recv
    buf = self._recv_bytes()
  File "/usr/lib/python3.10/multiprocessing/connection.py", line 414, in _recv_bytes
    buf = self._recv(4)
  File "/usr/lib/python3.10/multiprocessing/connection.py", line 383, in _recv
    raise EOFError
EOFError
'''


def test_a_bare_error_raised_by_the_standard_library_under_an_entrys_site():
    """sglang before 0.5.10 re-raises the scheduler pipe's bare EOFError: the raise statement is the
    standard library's, which is no other package's copy of the check."""
    assert ids(DEAD_SCHEDULER) == ["sglang/scheduler-dead-eof"]


def test_a_message_after_a_python_warnings_category_is_no_failure():
    """torch.cuda.is_available() warns and says False on a machine without a GPU; the process goes on."""
    warning = ("/usr/lib/python3/site-packages/torch/cuda/__init__.py:52: UserWarning: CUDA initialization: Found no "
               "NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
               "http://www.nvidia.com/Download/index.aspx\n")
    assert ids(warning) == []
    assert ids("qian2020 · 2020-12-30" + warning.split(": ", 1)[1]) == []       # run into the line before
    assert ids(warning.split("UserWarning: CUDA initialization: ")[1]) == ["torch/cuda-no-driver"]


def test_a_warning_an_entry_says_is_a_failure():
    """torch warns, rather than raises, that the driver is too old for its CUDA
    (sgl-project/sglang#11395): the GPU is there and cannot be used."""
    warning = ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:182: UserWarning: CUDA initialization: "
               "The NVIDIA driver on your system is too old (found version 12040). Please update your GPU driver by "
               "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx\n")
    assert ids(warning) == ["torch/cuda-driver-too-old"]


def test_a_message_quoted_in_a_warning_is_no_failure():
    """TensorFlow warns that ptxas does not know sm_86 and falls back: the process went on."""
    warning = ("2021-02-27 01:33:51.779607: W external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:235] "
               "Your CUDA software stack is old. We fallback to the NVIDIA driver for some compilation. "
               "The ptxas error was: ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'\n")
    assert ids(warning) == []
    error = warning.replace(": W external", ": E external")
    assert ids(error) == []                          # TensorFlow's own ptxas run: not Triton's error
    assert ids(error.split("] ", 1)[1]) == ["triton/ptxas-unknown-arch"]


def test_ptxas_run_by_another_compiler_is_not_tritons():
    """XLA, tinygrad and MLIR pipelines run ptxas too; its words are Triton's error only where the
    text does not show another compiler without Triton, and never where XLA says it ran ptxas
    (jax-triton's kernels are Triton's, their PTX assembled by XLA)."""
    ptxas = "ptxas /tmp/x.ptx, line 5; fatal   : Unsupported .version 8.4; current version is '8.2'\n"
    triton = 'File "/usr/lib/python3/site-packages/triton/compiler/compiler.py", line 9, in compile\n'
    assert ids(ptxas) == ["triton/ptxas-ptx-version"]
    for other in ("Failed to generate SASS Command '['ptxas', '-arch=sm_61', '-o', '/tmp/tinycuda_03fe']' returned non-zero exit status 255.\n",
                  '"name": "MlirCompilerError",\n'):
        assert ids(other + ptxas) == []
        assert ids(other + ptxas + triton) == ["triton/ptxas-ptx-version"]
    xla = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CustomCall failed: ptxas exited with non-zero error code 65280, output: "
    assert ids(xla + ptxas) == [] and ids(xla + ptxas + triton) == []


def test_a_message_tagged_with_where_it_ran():
    """xinference (xoscar) puts "[address=..., pid=...] " before the message of an actor's error."""
    text = ("ValueError: [address=0.0.0.0:37247, pid=280605] Unrecognized model in /data/models/bge-m3. "
            "Should have a `model_type` key in its config.json\n")
    assert ids(text) == ["transformers/no-model-type"]


def test_the_tokenizer_refusal_shares_the_auto_model_wording_but_not_its_entry():
    head = "ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_t5.T5Config'> "
    assert ids(head + "to build an AutoTokenizer.\nModel type should be one of AlbertConfig\n") == \
        ["transformers/auto-tokenizer-config-unsupported"]
    assert ids(head + "for this kind of AutoModel: AutoModelForCausalLM.\nModel type should be one of BartConfig\n") == \
        ["transformers/auto-class-config-unsupported"]


def test_torch_extension_builds_are_flashinfers_only_by_its_module_names():
    """FlashInfer 0.2.0-0.2.5 built through torch's cpp_extension, whose failure every extension shares."""
    assert ids("RuntimeError: Error building extension 'exllama_ext'\n") == []
    assert ids("RuntimeError: Error building extension 'batch_decode_with_kv_cache_dtype_q_f16_dtype_kv_f16'\n") == \
        ["flashinfer/jit-build-failed"]
    command = "RuntimeError: Error building extension 'sampling': [1/3] /usr/local/cuda/bin/nvcc -c renorm.cu -I{}/include\n"
    assert ids(command.format("/opt/conda/lib/python3.10/site-packages/flashinfer/data")) == ["flashinfer/jit-build-failed"]
    assert ids(command.format("/opt/conda/lib/python3.10/site-packages/exllama/csrc")) == []


def test_a_quoted_message_that_starts_with_a_bracket():
    assert ids("The crash `[metal::malloc] Resource limit (499000) exceeded` happens under load.\n") == \
        ["mlx/metal-resource-limit"]


def test_an_fp8_type_other_than_e4m3_refused_on_a_new_gpu():
    """Triton's message names the type refused; only fp8e4nv refused means a GPU older than Ada."""
    refused = "ValueError: type {} not supported in this architecture. The supported fp8 dtypes are ({})\n"
    assert ids(refused.format("fp8e5b16", "'fp8e4nv', 'fp8e5'")) == []
    assert ids(refused.format("fp8e4nv", "'fp8e4b15', 'fp8e5'")) == ["triton/fp8e4nv-unsupported"]


def test_torchscript_loading_a_plain_checkpoint_is_not_a_damaged_file():
    missing = "RuntimeError: PytorchStreamReader failed locating file {}: file not found\n"
    assert ids(missing.format("constants.pkl")) == []
    assert ids(missing.format("data/0")) == ["torch/load-corrupt-archive"]


def test_missing_and_unexpected_keys_quoted_on_one_line_are_one_error():
    line = 'resuming fails: `Missing key(s) in state_dict: "a.weight". Unexpected key(s) in state_dict: "_orig_mod.a.weight".`\n'
    assert ids(line) == ["torch/state-dict-missing-keys"]


def test_gloo_quoted_without_its_enforce_prefix_only_for_an_interface():
    """gloo's interface and hostname lookups end in the same words; without the enforce prefix,
    only a name shaped like an interface (or an IP address put where one belongs) is the entry's."""
    quoted = "RuntimeError: Unable to find address for: {}\n"
    for name in ("eth0", "enP7s7", "bond1", "ib0", "10.0.3.7"):
        assert ids(quoted.format(name)) == ["torch/gloo-interface-not-found"], name
    for name in ("dgx-1.ai", "node001", "gpu-worker-3"):
        assert ids(quoted.format(name)) == [], name


def test_triton_out_of_resources_without_its_lead_in_needs_the_numbers():
    printed = "triton.runtime.errors.OutOfResources: shared memory, Required: 147456, Hardware limit: 101376\n"
    assert ids(printed) == ["triton/oor-shared-memory"]
    assert ids("RuntimeError: shared memory\n") == []


def test_ninja_failed_line_is_flashinfers_only_in_its_jit_cache():
    """ninja's FAILED line alone (logged as a warning, its exception elsewhere) names the entry
    only for a target in FlashInfer's JIT cache; any other build's step is not its failure."""
    logged = "(Worker_TP0 pid=7) WARNING 06-09 01:36:04 [flashinfer_all_reduce.py:74] FAILED: [code=1] {}\n"
    assert ids(logged.format("/srv/cache/flashinfer/0.6.11/90a/cached_ops/trtllm_comm/trtllm_comm.so")) \
        == ["flashinfer/jit-build-failed"]
    assert ids(logged.format("/root/.cache/flashinfer/90a/generated/batch_prefill.cuda.o")) == ["flashinfer/jit-build-failed"]
    assert ids(logged.format("build/temp.linux-x86_64-cpython-311/csrc/attention_kernels.cuda.o")) == []
    raised = ("RuntimeError: Ninja build failed. Ninja output:\n"
              "ninja: Entering directory `/root/.cache/flashinfer/0.7.4/90a/cached_ops/silu_and_mul'\n"
              "FAILED: /root/.cache/flashinfer/0.7.4/90a/cached_ops/silu_and_mul/silu_and_mul.cuda.o \n"
              "/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found\n"
              "ninja: build stopped: subcommand failed.\n")
    assert ids(raised) == ["flashinfer/jit-build-failed"]


def test_an_engines_copy_of_another_engines_message_in_its_own_log():
    """sglang raised vLLM's registry message word for word; in a text that shows only sglang the
    vLLM entry (its flags, its releases) is not the explanation."""
    message = "ValueError: Model architectures ['Glm4ForCausalLM'] are not supported for now. Supported architectures: dict_keys(['LlamaForCausalLM'])\n"
    assert ids(message) == ["vllm/architecture-unsupported"]
    sglang = "[2025-04-15 10:02:11 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" + message
    assert ids(sglang) == []
    vllm = "ERROR 04-15 10:02:11 [engine.py:157] Engine failed to start\n" + message
    assert ids(vllm) == ["vllm/architecture-unsupported"]


def test_a_title_is_not_cut_back_to_one_word_after_its_last_colon():
    """"CUDA error: invalid" starts a dozen CUDA errors: a title naming one of them whole is not
    the start of another with its last word taken as the poster's."""
    assert ids("# [Bug]: RuntimeError: CUDA error: invalid argument\n") == []
    assert ids("# RuntimeError: CUDA error: an illegal memory access when serving Qwen3\n") == ["torch/cuda-illegal-address"]


def test_a_title_whose_own_words_follow_without_a_space():
    title = "# 实测2080ti也会出现triton.runtime.errors.OutOfResources: out of resource: shared memory的报错\n"
    assert ids(title) == ["triton/oor-shared-memory"]


def test_mlxs_resource_limit_without_its_tag_and_another_programs_limit():
    """The allocator's tag is often lost where its message is quoted; a container's limit on its
    CPU and memory is not mlx's buffer count."""
    assert ids("# Resource limit (499000) exceeded.\n\nwhile generating the 5th chunk\n") == ["mlx/metal-resource-limit"]
    assert ids("Error: Resource limit (CPU, RAM) exceeded for pod vllm-0\n") == []


def test_a_hub_url_written_for_a_repo_id_is_not_a_missing_path():
    url = ("HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
           "'https://huggingface.co/org/model/'. Use `repo_type` argument if needed.\n")
    assert ids(url) == []
    path = url.replace("https://huggingface.co/org/model/", "/models/llama-3-8b/")
    assert ids(path) == ["transformers/model-path-not-found"]


def test_a_titles_message_after_a_dash_behind_an_errors_class_or_a_component():
    """A title "RuntimeError - CUDA out of memory" quotes the allocator's head, and so does one
    after the single word that names a component; a dash after prose starts no message; a short
    head retyped in lower case and quoted in prose that denies it, or in code that tests for it,
    is no error."""
    assert ids("a/b · issue #4 · closed\n# RuntimeError - CUDA out of memory\n") == ["torch/cuda-oom"]
    title = "# [Bug] langchain_huggingface - Cannot use chat template functions because tokenizer.chat_template is not set\n"
    assert ids("a/b · issue #5 · closed\n" + title) == ["mlx-lm/chat-template-missing"]
    assert ids("a/b · issue #81 · closed\n# Unable to load model - Repo id must be in the form 'repo_name'\n") == []
    assert ids('x · comment\nI no longer get "cuda out of memory" after upgrading, thanks!\n') == []
    assert ids('x · comment\nif "cuda out of memory" in str(e):\n') == []


@pytest.mark.parametrize("text, entry", [
    ('# [Bug] sglang offline inference: "cuda out of memory" error, while vllm works fine\n', "torch/cuda-oom"),
    ('# Loading fails with an "Unrecognized model" error after the upgrade\n', None),     # stops mid-phrase
    ("but I got a \u201ccuda out of memory\u201d after 8784 iterations\n", "torch/cuda-oom"),       # prose
])
def test_a_titles_quoted_start_of_a_message_retyped_in_lower_case(text, entry):
    """A title's (or a sentence's) quote in another case that starts a message with fewer of its words
    than a retyped line needs, where it stops where the message's phrase may stop."""
    assert ids(text) == ([entry] if entry else [])


@pytest.mark.parametrize("text, entry", [
    ("# lmms-lab/llava-next-72b CUDA out of memory\n", "torch/cuda-oom"),
    ("# Using with vLLM and runpod gives error stating Repo id must be in the form 'repo_name'...\n",
     "transformers/model-path-not-found"),
    ("# Unable to load model - Repo id must be in the form 'repo_name'\n", None),     # a dash joins two things
    ("# Error when load checkpoint: Missing key(s) in state_dict & Unexpected key(s) in state_dict\n",
     "torch/state-dict-missing-keys"),
])
def test_a_titles_message_after_the_writers_subject(text, entry):
    """A title may give its subject first ("<model> CUDA out of memory"): a capitalised word after
    a word of it may start the message; after a dash or an "&" it starts a second thing."""
    assert ids(text)[:1] == ([entry] if entry else [])


def test_a_message_retyped_in_lower_case_is_known_by_its_own_alternative():
    """Each alternative of a pattern is judged on its own words, not on the words of all of them."""
    text = ("valueerror: loading internvl2-8b/ requires you to execute the configuration file in that repo on your "
            "local machine. make sure you have read the code there to avoid malicious use, then set the option "
            "'trust_remote_code=true\u2019 to remove this error.\n")
    assert ids(text) == ["transformers/trust-remote-code"]
    # a short alternative among others says too little retyped: mlx-lm's "Unknown quantization method X."
    assert ids("and raised `unknown quantization method`.\n") == []


def test_cmakes_missing_nvcc_is_not_flashinfers():
    assert ids("  Could not find nvcc, please set CUDAToolkit_ROOT.\n") == []
    assert ids("RuntimeError: Could not find nvcc\n") == ["flashinfer/nvcc-not-found"]


def test_a_missing_symbol_of_vllms_own_is_not_another_torch():
    own = ("ImportError: /env/vllm/_C.abi3.so: undefined symbol: "
           "_Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_\n")
    assert ids(own) == []
    torchs = own.replace("_Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_", "_ZN3c106detail19maybe_wrap_dim_slowEllb")
    assert ids(torchs) == ["vllm/kernels-undefined-symbol"]


def test_a_bare_divisibility_assert_is_vllms_in_a_text_that_shows_only_vllm():
    """vllm/not-divisible needs its raise site: the words come from sglang and Megatron too. A quote of
    them is vLLM's in a text that shows vLLM's log lines and no other engine's."""
    quote = "# [Bug]: GLM-4.5V - AssertionError: 12 is not divisible by 8\n\nstartup fails with `AssertionError: 12 is not divisible by 8`\n"
    worker = ("(VllmWorker TP2 pid=415) ERROR 08-31 04:18:45 [multiproc_executor.py:559] WorkerProc failed to start.\n"
              "(VllmWorker TP2 pid=415) ERROR 08-31 04:18:45 [multiproc_executor.py:559] Traceback (most recent call last):\n")
    assert "vllm/not-divisible" not in ids(quote)
    assert ids(quote + worker)[0] == "vllm/not-divisible"
    sglang = "[2025-08-31 04:18:45 TP2] Scheduler hit an exception: Traceback (most recent call last):\n"
    assert "vllm/not-divisible" not in ids(quote + worker + sglang)     # two engines shown: neither is sure
    # quoted mid-sentence, in a text that shows no engine: sglang's words as well, so neither entry
    mid = "fails with errors like `AssertionError: 16 is not divisible by 3` when serving with TP 3\n"
    assert ids(mid) == []
    assert ids(mid + worker) == ["vllm/not-divisible"]
    assert ids(mid + sglang.replace("Traceback (most recent call last):", "")) == ["sglang/not-divisible"]


def test_llama_cpps_own_cuda_check_is_not_torchs():
    """ggml checks its CUDA calls and prints CUDA's words; torch's explanation and fixes are not for it."""
    ggml = "CUDA error 700 at ggml-cuda.cu:6963: an illegal memory access was encountered\n"
    assert ids(ggml) == []
    torch = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    assert ids(torch) == ["torch/cuda-illegal-address"]
    assert ids(torch + '  File "/usr/lib/python3/site-packages/torch/cuda/__init__.py", line 9\n' + ggml)[0] == \
        "torch/cuda-illegal-address"      # both shown: the words are read as before


@pytest.mark.parametrize("text", [
    "error CUDA error: out of memory (c:\\projects\\lc0\\src\\neural\\cuda\\network_cudnn.cc:442\n",
    'The CNTK 2.0 GPU wheel fails: "RuntimeError: CUDA failure 77: an illegal memory access was encountered"\n',
    "# nvidia-container-cli: initialization error: cuda error: invalid device ordinal\n",
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:1011] could not synchronize on CUDA context: "
    "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered ::\n",
    "[E:onnxruntime:, sequential_executor.cc:494] CUDA failure 900: operation not permitted when stream is "
    "capturing ; GPU=0 ; hostname=box ; expr=cudaStreamSynchronize(stream);\n",
    "# [bug] - CUDA failure 900: operation not permitted when stream is capturing\n",
    "Warp CUDA error 900: operation not permitted when stream is capturing (in function wp_cuda_unload_module, "
    "warp/native/warp.cu:3947)\n",
    "$ trtexec --loadEngine=model.plan --useCudaGraph\n[E] Error[1]: [executionContext.cpp::enqueueV3::2666] Error "
    "Code 1: Cuda Runtime (operation not permitted when stream is capturing)\n",
    "2021-06-01 19:07:24.394202: E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: "
    "CUBLAS_STATUS_ALLOC_FAILED\n",
])
def test_other_cuda_programs_checks_are_not_torchs(text):
    """CNTK, Leela Chess Zero, the container toolkit's hook, XLA, TensorFlow, ONNX Runtime, NVIDIA Warp
    and TensorRT print CUDA's (and cuBLAS's) words for their own CUDA calls; torch's CUDA explanations
    and fixes are not for them. NCCL's words stay NCCL's under any framework."""
    assert ids(text) == []
    torch = '  File "/usr/lib/python3/site-packages/torch/cuda/__init__.py", line 9\n'
    assert ids(torch + text) != []
    paddle = "OSError: (External) NCCL error(2), unhandled system error. (at /paddle/paddle/fluid/platform/collective_helper.cc:87)\n"
    assert ids(paddle) == ["torch/nccl-system-error"]


def test_a_message_assigned_in_code_under_review_is_no_error():
    """A review diff's 'msg = "Not enough memory. ..."' is sglang's source, not its error; a
    logfmt line's msg="..." is a log of the error."""
    code = '-            msg = "Not enough memory. Please try to increase --mem-fraction-static."\n'
    assert ids(code) == []
    logged = 'level=error msg="Not enough memory. Please try to increase --mem-fraction-static."\n'
    assert ids(logged) == ["sglang/not-enough-memory"]


def test_a_cmake_build_of_flashinfers_sources_is_not_its_jit():
    """FlashInfer's sources fetched into one's own CMake project fail in the compiler's words its
    JIT build prints; that build's fixes (the JIT cache, CUDA_HOME) are not for it."""
    error = "/data/A/build/_deps/flashinfer-src/src/utils.h:33:10: fatal error: generated/dispatch.inc: No such file or directory\n"
    named = "Using flashinfer's headers in my kernels fails:\n"
    assert ids(named + "FetchContent_Populate(flashinfer)\n" + error) == []
    jit = "2025-03-01 10:00:00 - INFO - flashinfer.jit: Loading JIT ops: batch_decode\n"
    assert ids(named + jit + error.replace("/data/A/build/_deps/flashinfer-src/src/", "")) == ["flashinfer/jit-build-failed"]


def test_an_exception_handed_to_a_log_call_that_logging_could_not_format_is_no_failure():
    """Python's "--- Logging error ---" report prints the call's arguments: vLLM's probe of the Hub
    for a local path logged its HFValidationError there and went on loading from that path."""
    report = ("--- Logging error ---\n"
              "Message: 'Error getting repo files'\n"
              "Arguments: (HFValidationError(\"Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
              "'/models/Llama-3-1-8B-Instruct'. Use `repo_type` argument if needed.\"),)\n"
              "INFO 02-22 19:54:23 llm_engine.py:234] Initializing a V0 LLM engine\n")
    assert ids(report) == []


def test_ptxas_that_xla_ran_is_not_tritons_even_where_the_text_names_triton():
    """jax-triton's kernels are Triton's, but XLA's own ptxas assembles their PTX: Triton's fixes
    (TRITON_PTXAS_PATH, a newer Triton) do not reach it."""
    xla = ("jax-triton's blocksparse example fails:\n"
           "INTERNAL: ptxas exited with non-zero error code 65280, output: ptxas /tmp/tempfile-1, line 5; "
           "fatal   : Unsupported .version 8.0; current version is '7.8'\n")
    assert ids(xla) == []
    triton = "triton.compile of my kernel fails:\nptxas /tmp/k.ptx, line 5; fatal   : Unsupported .version 8.0; current version is '7.8'\n"
    assert ids(triton) == ["triton/ptxas-ptx-version"]


def test_ptxas_under_numbas_cuda_target_is_not_tritons():
    """Numba's CUDA target links its PTX through the driver or nvJitLink; the PTX-version words are
    ptxas's, and Triton's fixes (TRITON_PTXAS_PATH, a newer Triton) are not for it."""
    ptxas = "ptxas application ptx input, line 9; fatal   : Unsupported .version 8.7; current version is '8.4'\n"
    assert ids("@cuda.jit kernels fail through numba-cuda:\n" + ptxas) == []
    assert ids("pynvjitlink.api.NvJitLinkError: NVJITLINK_ERROR_PTX_COMPILE error\n" + ptxas) == []
    assert ids("triton.compile of my kernel fails:\n" + ptxas) == ["triton/ptxas-ptx-version"]


def test_cpythons_bootstrapping_error_is_vllms_case_only_in_a_text_that_names_vllm():
    """Any script that spawns at import time gets CPython's words; vllm/spawn-main-guard explains
    a script that builds vLLM's engine at module level."""
    error = ("RuntimeError: \n        An attempt has been made to start a new process before the\n"
             "        current process has finished its bootstrapping phase.\n")
    assert ids("from vllm import LLM\nllm = LLM('Qwen/Qwen3-0.6B')\n" + error) == ["vllm/spawn-main-guard"]
    assert ids("# vllm encounter freeze_support() problem\n\n" + error) == ["vllm/spawn-main-guard"]
    assert ids("python train.py --world_size 2 --model_name meta-llama/Llama-2-7b-hf\n" + error) == []


def test_mlx_vlms_model_type_message_names_its_own_module():
    """mlx-vlm appends the ImportError to its copy of mlx-lm's message: its module path says whose
    lookup failed."""
    vlm = ("ValueError: Model type prism_hadamard_qwen35 not supported. Error: No module named "
           "'mlx_vlm.speculative.drafters.prism_hadamard_qwen35'\n")
    assert ids(vlm) == []
    assert ids("ValueError: Model type prism_hadamard_qwen35 not supported.\n") == ["mlx-lm/model-type-unsupported"]


def test_a_model_type_lookup_whose_import_error_names_a_sibling_package():
    """mlx-embeddings and mlx-vlm print mlx-lm's words after their own import fails: the module
    their lookup looked for says whose it was (Blaizzy/mlx-embeddings#65)."""
    copy = ("ERROR:root:Model type gemma4 not supported.\n"
            "ModuleNotFoundError: No module named 'mlx_embeddings.models.gemma4'\n"
            "ValueError: Model type gemma4 not supported.\n")
    assert ids(copy) == []
    own = copy.replace("mlx_embeddings", "mlx_lm")
    assert "mlx-lm/model-type-unsupported" in ids(own)
    other = copy.replace("mlx_embeddings.models.gemma4", "mlx_vlm.models.qwen2_vl")   # another lookup's failure
    assert "mlx-lm/model-type-unsupported" in ids(other)


@pytest.mark.parametrize("cls", ["ChatGLMTokenizer", "QWenTokenizer", "BaichuanTokenizer", "InternLM2Tokenizer",
                                 "XgenTokenizer", "MossTokenizer"])
def test_a_remote_code_repositorys_tokenizer_class_is_no_missing_release(cls):
    """Those classes live in the model repository's own code, in no transformers release: an
    upgrade does not bring them (trust_remote_code does)."""
    assert ids(f"ValueError: Tokenizer class {cls} does not exist or is not currently imported.\n") == []


@pytest.mark.parametrize("cls", ["Qwen2Tokenizer", "GemmaTokenizerFast", "TokenizersBackend", "LLaMATokenizer",
                                 "CodeLLaMATokenizer"])
def test_a_tokenizer_class_of_a_release_or_its_misspelling_is_a_missing_release(cls):
    """A class some transformers release has, in any case: an upgrade brings it, or the name is a
    misspelling of it that tokenizer_config.json should correct."""
    assert ids(f"ValueError: Tokenizer class {cls} does not exist or is not currently imported.\n") == \
        ["transformers/tokenizer-class-unknown"]


def test_a_training_frameworks_tensor_parallel_check_is_not_sglangs():
    """Megatron and DeepSpeed check their parallel sizes in sglang's words; a traceback of theirs
    cut before the raise, without sglang in it, is not sglang's check."""
    error = "AssertionError: 151851 is not divisible by 4\n"
    megatron = ('Traceback (most recent call last):\n'
                '  File "/home/u/Pai-Megatron-Patch/megatron_patch/model/qwen/language_model.py", line 77, in get_language_model\n'
                '    language_model = TransformerLanguageModel(\n')
    assert ids(error) == ["sglang/not-divisible"]
    assert ids(megatron + error) == []
    rollout = '  File "/opt/sglang/python/sglang/srt/distributed/utils.py", line 31, in ensure_divisibility\n'
    assert ids(megatron + rollout + "    assert numerator % denominator == 0, \\\n" + error) == ["sglang/not-divisible"]


def test_a_signatures_return_annotation_on_its_own_line_is_no_error():
    """Python code pasted in an issue: a multi-line signature ends in ") -> whisper.Whisper:"."""
    code = ("def load_model(\n    path_or_hf_repo: str,\n    dtype: mx.Dtype = mx.float32,\n"
            ") -> whisper.Whisper:\n    model_path = Path(path_or_hf_repo)\n")
    assert list(findings(io.StringIO(code))) == []


def test_flashinfers_old_dispatch_wording_is_known_only_whole():
    """0.0.x's "failed to dispatch with dtype": a title about another failure of the same kernel
    ("... failed with error invalid argument") does not start it."""
    assert ids("RuntimeError: BatchPrefillWithPagedKVCache failed to dispatch with dtype Half\n") == \
        ["flashinfer/no-kernel-config"]
    assert ids("# [Bug]: BatchPrefillWithPagedKVCache failed with error invalid argument\n") == []


def test_a_quantization_or_generation_config_is_not_a_models_config():
    """transformers' BitsAndBytesConfig and GenerationConfig come from no config.json: an upgrade for
    a new architecture or a sub-config explains neither one's missing attribute."""
    for cls in ("BitsAndBytesConfig", "GPTQConfig", "GenerationConfig"):
        assert ids(f"AttributeError: '{cls}' object has no attribute 'get_loading_attributes'\n") == []
    assert ids("AttributeError: 'Qwen2Config' object has no attribute 'quant_config'\n") == [
        "transformers/config-missing-attribute"]


def test_a_quote_is_weighed_after_the_other_engines_copies_are_set_aside():
    """sglang's copy of vLLM's block check is no finding in an sglang text; the title's KeyError,
    which sglang's entry knows, is then the root cause."""
    text = ("# KeyError: 'model.layers.28.mlp.experts.w2_weight_scale_inv' in 4*H20\n\n"
            "I also get ValueError: Weight output_partition_size = 576 is not divisible by weight quantization "
            "block_n = 128.\n\n"
            "[2025-02-14 07:48:15 TP6] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1787, in run_scheduler_process\n')
    assert ids(text) == ["sglang/load-weights-unknown-tensor"]


def test_a_cut_message_that_shares_only_a_value_with_a_sample_names_nothing():
    """A sample's path ("/opt/conda/conda-bld/...") is a value, not the message's words: a message
    cut inside it ("NCCL error in: /opt/conda/conda-b") could be any NCCL error."""
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 26, in train\n'
            "    accelerator.backward(loss)\n"
            "RuntimeError: NCCL error in: /opt/conda/conda-b")
    assert ids(text) == []


def test_cudas_invalid_configuration_is_flashinfers_only_in_a_text_that_names_it():
    """ggml's flash-attention launch fails with CUDA's own "Invalid configuration"; FlashInfer's tile
    check says "Invalid configuration : <config> ... please create an issue"."""
    assert ids("# Eval bug: In function launch_fattn: CUDA ERROR: Invalid configuration\n") == []
    told = "FlashInfer ragged prefill raises its internal 'Invalid configuration' error for head_dim=32\n"
    assert ids(told) == ["flashinfer/no-kernel-config"]


def test_a_private_placeholder_is_not_a_models_config():
    assert ids("# fix AttributeError: '_DummyConfig' object has no attribute 'model_type'\n") == []


def test_a_copy_that_raised_is_its_own_error_not_a_size_mismatch():
    """Since torch 0.4 a shape mismatch is "size mismatch for ..."; "While copying the parameter
    named ..." goes on with the exception copy_() raised, which is the cause."""
    text = ('RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n'
            '\tWhile copying the parameter named "base_model.model.lm_head.weight", whose dimensions in the model are '
            'torch.Size([8, 8192]) and whose dimensions in the checkpoint are torch.Size([8, 8192]), an exception occurred : '
            "('Expected all tensors to be on the same device, but found at least two devices, npu:7 and npu:0!',).\n")
    assert "torch/state-dict-size-mismatch" not in ids(text)
    assert "torch/state-dict-size-mismatch" not in ids(text[:text.index("checkpoint are") + 12])


def test_the_fallbacks_refusal_is_the_engine_the_text_shows_or_names():
    """vLLM (0.8 to 0.10) and sglang refuse an architecture in the same words. The engine the text
    shows says whose; a text that shows neither but names one in prose is that one's; a text that
    names both says nothing more than the words."""
    error = ("ValueError: Cannot find model module. 'MiniMindForCausalLM' is not a registered model in the "
             "Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' "
             "is not present in the model config's 'auto_map' (relevant if the model is custom).\n")
    vllm = "(EngineCore_DP0 pid=812) ERROR 05-12 10:02:11 [core.py:700] EngineCore failed to start.\n"
    sglang = "[2025-05-12 10:02:11 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    assert ids(vllm + error) == ["vllm/architecture-unsupported"]
    assert ids(sglang + error) == ["sglang/arch-no-model-module"]
    prose = "# VLLM部署\n\nvllm 0.8.x 和 0.7.x 都试过了，部署时一直报错：\n\n"
    assert ids(prose + error) == ["vllm/architecture-unsupported"]
    assert ids(prose.replace("VLLM", "SGLang").replace("vllm", "sglang") + error) == ["sglang/arch-no-model-module"]
    # quoted in prose: the words alone name neither engine, the one named says whose
    quoted = f"Deploying with vLLM fails: `{error.strip()}`\n"
    assert ids(quoted) == ["vllm/architecture-unsupported"]
    assert ids(quoted.replace("vLLM", "vLLM and sglang")) == []


def test_vllms_words_in_a_text_that_names_only_sglang_are_sglangs_copy():
    """sglang's registry raised vLLM's "are not supported for now" in its own releases: a text that
    names sglang and neither shows nor names vLLM gets no vLLM advice; naming vLLM gives it back."""
    error = ("ValueError: Model architectures ['Glm4ForCausalLM'] are not supported for now. "
             "Supported architectures: dict_keys(['BaichuanForCausalLM', 'ChatGLMModel'])\n")
    assert ids("sgl-project/sglang · issue #5441\n" + error) == []
    assert ids("vllm-project/vllm · issue #5441\n" + error) == ["vllm/architecture-unsupported"]
    assert ids(error) == ["vllm/architecture-unsupported"]


def test_triton_front_ends_block_pointer_store_checks():
    assert ids("# AssertionError('Block shape([1, 2048]) and value shape([2048]) mismatch') in triton\n") == \
        ["triton/compilation-error"]
    assert ids("AssertionError: Block element type(bf16) and value element type(fp32) mismatch\n") == []   # Triton unnamed


def test_rocms_hip_reports_in_cudas_words_are_not_cudas():
    """HIP names itself before an error it reports in CUDA's words: the CUDA entry's causes (a wheel
    built for other GPUs, CUDA_LAUNCH_BLOCKING) are not ROCm's."""
    hip = ("torch._inductor.exc.InductorError: RuntimeError: Triton Error [HIP]:  Code: 209, Messsage: no kernel image "
           "is available for execution on the device\n")
    assert ids(hip) == []
    assert ids("# [ROCm]: `RuntimeError: Triton Error [HIP]: Code: 209, Messsage: no kernel image is available for "
               "execution on the device`\n") == []
    cuda = hip.replace("[HIP]", "[CUDA]")
    assert ids(cuda) == ["torch/cuda-no-kernel-image"]


def test_a_negative_size_wrapped_to_unsigned_is_no_buffer_too_large():
    """2**64 - 2048 bytes is a size computed below zero (an empty last chunk), not a large array."""
    wrapped = ("RuntimeError: [metal::malloc] Attempting to allocate 18446744073709549568 bytes which is greater than "
               "the maximum allowed buffer size of 17179869184 bytes.\n")
    assert ids(wrapped) == []
    assert ids(wrapped.replace("18446744073709549568", "48736917632")) == ["mlx/metal-buffer-too-large"]


def test_words_two_engines_share_are_the_engines_a_text_names_alone():
    """sglang's quantization check raises vLLM's words, and mlx-lm's starts the same: cut short in a
    title that names only sglang, it is sglang's; in one that names vLLM too, neither's."""
    pr = "# Failed to start the sglang service with the GLM-4.7-W8A8 model with the error: Unknown quantization method\n"
    assert ids(pr) == ["sglang/quantization-unknown"]
    assert ids(pr.replace("sglang", "sglang or vLLM")) == []


def test_an_engine_named_only_in_a_collectors_prefix_names_nothing():
    """kubectl's --prefix and docker compose put the pod's or service's name before every line:
    "vllm" there is a deployment's name, not the text naming the engine."""
    error = ("ValueError: Cannot find model module. 'MiniMindForCausalLM' is not a registered model in the "
             "Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' "
             "is not present in the model config's 'auto_map' (relevant if the model is custom).\n")
    bare = "Traceback (most recent call last):\n  File \"serve.py\", line 3, in <module>\n" + error
    prefixed = "".join(f"[pod/vllm-7d9f8-abcde/vllm] {line}\n" for line in bare.splitlines())
    assert ids(prefixed) == ids(bare)


def test_a_system_librarys_symbol_missing_from_sgl_kernel_is_no_torch_mismatch():
    """sgl_kernel's common_ops built from source without libnuma: a C symbol the build did not link."""
    line = "ImportError: {}/sgl_kernel/common_ops.cpython-313-x86_64-linux-gnu.so: undefined symbol: {}\n"
    site = "/opt/venv/lib/python3.13/site-packages"
    assert ids(line.format(site, "numa_get_membind")) == []
    assert ids(line.format(site, "_ZN3c104cuda9SetDeviceEa")) == ["sglang/sgl-kernel-undefined-symbol"]
    assert ids(line.format(site, "cuGreenCtxStreamCreate")) == ["sglang/sgl-kernel-undefined-symbol"]


def test_a_quote_of_two_words_and_an_ellipsis_is_no_message():
    """A change's description lists the messages it handles by their shapes ("Expected shape ...")."""
    text = ('mlx-lm raises `ValueError` ("Missing N parameters", "Received N parameters not in model", or\n'
            '"Expected shape ...") for checkpoints that legitimately omit or add weights.\n')
    assert ids(text) == []


def test_a_raise_line_of_assertionerror_is_not_a_kernels_assertion():
    """A kernel's "... Assertion `...` failed." line starts with the word Assertion; a title's
    `raise AssertionError(...)` holds those letters, not that word: it is torch's own assert."""
    title = '# raise AssertionError("Torch not compiled with CUDA enabled") AssertionError: Torch not compiled with CUDA enabled\n'
    assert ids(title) == ["torch/not-compiled-with-cuda"]


def test_a_compilers_words_assigned_to_a_string_in_reviewed_code_are_no_build_failing():
    text = ("flashinfer/jit/cpp_ext.py:384\n"
            "```shell\npython - <<'PY'\n"
            "line = \"nvcc fatal   : Unsupported gpu architecture 'compute_120'\"\n"
            "current = \"fatal error:\" in line\nPY\n```\n")
    assert ids(text) == []

def test_vllms_pick_of_an_internal_port_is_not_the_servers_port():
    """vLLM's get_open_port binding a port for its own processes fails with errno 98 too; the
    server's --port advice of process/port-in-use is wrong there. uvicorn's bind is the server's."""
    picked = ('Traceback (most recent call last):\n'
              '  File "/venv/lib/python3.10/site-packages/vllm/utils.py", line 572, in get_open_port\n'
              '    s.bind(("", 0))\n'
              'OSError: [Errno 98] Address already in use\n')
    assert ids(picked) == []
    served = "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use\n"
    assert ids(served) == ["process/port-in-use"]


def test_torchs_rocm_build_says_cuda_error_and_names_hips():
    """ROCm/legacy-rocm-build#6003: torch built for ROCm prints CUDA's words and, on the next line,
    the HIP error to search for: ROCm's failure, which CUDA's causes and fixes do not explain,
    whether raised or printed by the abort that carried it."""
    message = ("CUDA error: an illegal memory access was encountered\n"
               "Search for `hipErrorIllegalAddress' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html "
               "for more information.\n")
    assert ids("torch.AcceleratorError: " + message) == []
    assert ids("terminate called after throwing an instance of 'c10::AcceleratorError'\n  what():  " + message) == []
    assert ids("torch.AcceleratorError: " + message.split("\n")[0] + "\n") == ["torch/cuda-illegal-address"]


def test_a_trainers_arguments_are_no_model_config():
    """modelscope/ms-swift#3106: TRL's GRPOConfig holds a trainer's arguments, not a model's
    config.json, and so do the subclasses other trainers make of it."""
    for name in ("GRPOConfig", "UnslothSFTConfig"):
        assert ids(f"AttributeError: '{name}' object has no attribute 'reward_weights'\n") == []
    assert ids("AttributeError: 'Qwen2Config' object has no attribute 'rope_theta'\n") == [
        "transformers/config-missing-attribute"]


def test_a_title_that_quotes_on_into_another_extensions_name_is_not_flashinfers():
    """deepspeedai/DeepSpeed#885: torch's "Error building extension '<name>'" for DeepSpeed's own
    op; FlashInfer's entry knows its modules by name, and the title goes on into the quote."""
    assert ids("# Error building extension 'fused_adam' with DeepSpeed==0.3.13\n") == []
    mine = "# Error building extension 'batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16' on H20\n"
    assert ids(mine) == ["flashinfer/jit-build-failed"]


def test_a_title_naming_torchs_oom_class_without_its_message():
    """vllm-project/vllm#11251: the class alone names the allocator's OOM; with its message after
    it, the message says whose memory ran out (ROCm's has its own entry, Intel's none)."""
    assert ids("# [Bug]: torch.OutOfMemoryError for 0.6.4.post1 but 0.6.3.post1 is working\n") == ["torch/cuda-oom"]
    assert ids("# torch.OutOfMemoryError: HIP out of memory.\n") == ["torch/hip-oom"]
    assert ids("# torch.OutOfMemoryError: XPU out of memory.\n") == []


def test_lua_torchs_cuda_errors_are_not_pytorchs():
    """Torch7's cutorch reports CUDA errors in the THC words old PyTorch used, and its paths say
    "torch"; PyTorch's fixes (wheels, TORCH_CUDA_ARCH_LIST) are not its."""
    error = "cuda runtime error (48) : no kernel image is available for execution on the device at "
    pytorch = "RuntimeError: " + error + "/pytorch/aten/src/THC/generic/THCTensorMath.cu:15\n"
    lua = ("/root/torch/install/share/lua/5.1/nn/THNN.lua:110: " + error
           + "/tmp/luarocks_cutorch-scm-1-7592/cutorch/lib/THC/generic/THCTensorMath.cu:15\n")
    assert ids(pytorch) == ["torch/cuda-no-kernel-image"]
    assert ids(lua) == []


def test_tritons_front_end_words_in_a_text_that_shows_inductor():
    """Inductor compiles the Triton kernels it generates: its compile worker's traceback shows no
    tl. call or triton path, yet "unexpected type fp32" there is Triton's front end refusing one."""
    title = "# [Eager/Compile Divergence] TypeError('unexpected type fp32')\n\n"
    inductor = ('  File "/data/pytorch/torch/_inductor/async_compile.py", line 461, in get_result\n'
                "    raise e.with_name(kernel_name) from e\n")
    assert ids(title + inductor) == ["triton/compilation-error"]
    assert ids(title + "the numpy cast fails on this machine\n") == []
