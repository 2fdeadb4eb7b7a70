"""torch, Triton and mlx-lm errors raised for real on CPU through the wrapped entrypoints."""

import io
import json
import traceback

import pytest

import enrich


@pytest.fixture(scope="module", autouse=True)
def installed():
    handle = enrich.install()
    yield handle
    enrich.uninstall()


def note_of(exc):
    [note] = exc.__notes__
    return note


def test_load_state_dict_names_the_projections_and_their_head_counts():
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaForCausalLM

    def llama(kv_heads):
        return LlamaForCausalLM(transformers.LlamaConfig(
            hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=kv_heads, vocab_size=128))

    with pytest.raises(RuntimeError) as info:
        llama(kv_heads=2).load_state_dict(llama(kv_heads=4).state_dict())
    exc = info.value
    assert exc._enrich["mechanism"] == "entrypoint:torch.load-state-dict"
    first = note_of(exc).splitlines()[0]
    assert first.startswith("[torch/state-dict-size-mismatch] LlamaForCausalLM and the checkpoint disagree:")
    assert "k_proj (2 tensors): checkpoint [64, 64] vs model [32, 64] = 4 vs 2 heads of head_dim 16" in first
    assert "v_proj (2 tensors)" in first


def compile_failing_kernel(tmp_path, monkeypatch, name: str, store: str):
    """Compile, on CPU, a one-line kernel whose store line is ``store``; the CompilationError."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget

    (tmp_path / f"{name}_module.py").write_text(
        "import triton, triton.language as tl\n"
        "@triton.jit\n"
        f"def {name}(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        f"    {store}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    kernel = getattr(__import__(f"{name}_module"), name)
    source = triton.compiler.ASTSource(fn=kernel, signature={"x_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 128})
    with pytest.raises(triton.compiler.errors.CompilationError) as info:
        triton.compile(source, target=GPUTarget("cuda", 90, 32))   # the front end runs without a GPU
    return info.value


def test_triton_compilation_error_on_cpu_names_the_cause(tmp_path, monkeypatch):
    exc = compile_failing_kernel(tmp_path, monkeypatch, "scale_kernel",
                                 "tl.store(x_ptr + offs, tl.load(x_ptr + offs) * scale_factor, mask=offs < n)")
    assert exc._enrich["mechanism"] == "entrypoint:triton.compile"
    assert note_of(exc).splitlines()[0] == ("[triton/compilation-error] Triton failed to compile kernel scale_kernel "
                                            "for sm_90: NameError('scale_factor is not defined')")


def test_triton_type_error_is_known_live_and_as_pasted(tmp_path, monkeypatch):
    from enrich.logs import findings

    exc = compile_failing_kernel(tmp_path, monkeypatch, "offset_kernel",
                                 "tl.store(x_ptr + offs * 0.5, tl.load(x_ptr + offs), mask=offs < n)")
    cause = "IncompatibleTypeErrorImpl('invalid operands of type pointer<fp32> and triton.language.float32')"
    assert note_of(exc).splitlines()[0] == (
        "[triton/incompatible-operand-types] Triton kernel offset_kernel combines operands of type pointer<fp32> "
        "and triton.language.float32, which Triton does not allow.")
    # what users paste: the caret's last line alone, or the type error as an issue's title
    for text in (f"   {cause}\n", "Invalid operands of type pointer<int64> and triton.language.int32\n"):
        [found] = findings(io.StringIO(text))
        assert found.id == "triton/incompatible-operand-types", text
    assert "pointer<fp32> and triton.language.float32" in findings(io.StringIO(cause))[0].summary


@pytest.mark.parametrize("number, store", list(enumerate([
    "tl.store(x_ptr, 1.0, mask=offs < n)",
    "tl.store(x_ptr + offs, tl.load(x_ptr + offs, other=0.0))",
    "tl.store(x_ptr + offs, tl.reshape(tl.load(x_ptr + offs), (64,)))",
    "tl.store(x_ptr + offs, tl.load(x_ptr + offs) + tl.zeros((64,), tl.float32))",
    "tl.store(x_ptr + offs, tl.dot(tl.load(x_ptr + offs), tl.load(x_ptr + offs)))",
    "acc = 0\n    for i in range(n):\n        acc = tl.load(x_ptr + offs)\n    tl.store(x_ptr + offs, acc)",
])))
def test_the_front_ends_checks_pasted_without_their_frames(tmp_path, monkeypatch, number, store):
    """The CompilationError's last line alone (a title, a log line): Triton's in a text that shows a
    kernel, nobody's in a text that shows none."""
    from enrich.logs import findings

    exc = compile_failing_kernel(tmp_path, monkeypatch, f"checked_kernel_{number}", store)   # one module each
    words = str(exc).splitlines()[-1].strip()
    kernel = f"@triton.jit\ndef checked_kernel_{number}(x_ptr, n, BLOCK: tl.constexpr):\n"
    assert [f.id for f in findings(io.StringIO(kernel + words + "\n"))] == ["triton/compilation-error"], words
    assert not any(f.id for f in findings(io.StringIO(words + "\n"))), words


def test_a_failing_compiler_pass_is_known_live_and_from_its_stderr(tmp_path, monkeypatch, capfd):
    """num_ctas=3 passes the front end and fails in the TTGIR pipeline: the exception says only
    "PassManager::run failed"; the note gives the launch options, the reader the printed failure."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from enrich.logs import findings

    (tmp_path / "cluster_module.py").write_text(
        "import triton, triton.language as tl\n"
        "@triton.jit\n"
        "def cluster_dot(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tile = offs[:, None] * BLOCK + offs[None, :]\n"
        "    tl.store(c_ptr + tile, tl.dot(tl.load(a_ptr + tile), tl.load(b_ptr + tile)))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from cluster_module import cluster_dot
    source = triton.compiler.ASTSource(fn=cluster_dot, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                                       constexprs={"BLOCK": 32})
    with pytest.raises(RuntimeError, match="^PassManager::run failed") as info:
        triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_ctas": 3})
    assert note_of(info.value).splitlines()[0] == (
        "[triton/compiler-pass-failed] A pass of Triton's compiler failed on a kernel for sm_90 (num_warps=4, "
        "num_ctas=3, num_stages=3); the \"Pipeline failed while executing\" line printed above the traceback names the pass.")
    stderr = capfd.readouterr().err
    assert "Pipeline failed while executing [`ConvertTritonToTritonGPU`" in stderr
    # the process's output as a log: MLIR's dump (after the assertion in Triton's C++ that failed the
    # pass, a line no entry knows), then the traceback as Python prints it
    printed = stderr + "".join(traceback.format_exception(info.value))
    assert [f.id for f in findings(io.StringIO(printed)) if f.id] == ["triton/compiler-pass-failed"]
    # MLIR's dump alone, as a paste cut before the traceback keeps it: its error line (after the C++
    # assertion, where Triton's build prints one) is the failed pass
    dumped = [f.id for f in findings(io.StringIO(stderr))]
    assert dumped[-1] == "triton/compiler-pass-failed" and set(dumped) <= {None, "triton/compiler-pass-failed"}
    # a library's log line that reports the error in its own words (the binding's words are Triton's alone)
    line = "Error running sage attention: PassManager::run failed, using pytorch attention instead.\n"
    assert [f.id for f in findings(io.StringIO(line))] == ["triton/compiler-pass-failed"]


@pytest.fixture
def tiny_mlx_llama(tmp_path):
    pytest.importorskip("mlx_lm")
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from mlx_lm.models.llama import Model, ModelArgs

    args = dict(model_type="llama", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
                num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=128)
    model = Model(ModelArgs(**args))
    weights = dict(tree_flatten(model.parameters()))
    return model, weights, args, mx


def test_mlx_load_weights_with_a_tensor_the_model_lacks(tmp_path, tiny_mlx_llama):
    model, weights, _, mx = tiny_mlx_llama
    weights["model.layers.0.self_attn.q_norm.weight"] = mx.ones((16,))
    path = tmp_path / "model.safetensors"
    mx.save_safetensors(str(path), weights)
    with pytest.raises(ValueError) as info:
        model.load_weights(str(path))
    exc = info.value
    assert exc._enrich["mechanism"] == "entrypoint:mlx-lm.load-weights"
    assert exc._enrich["id"] == "mlx/load-weights-unexpected"
    assert "q_norm" in note_of(exc)


def test_mlx_lm_model_type_not_supported(tmp_path, tiny_mlx_llama):
    from mlx_lm.utils import load_model
    _, weights, args, mx = tiny_mlx_llama
    mx.save_safetensors(str(tmp_path / "model.safetensors"), weights)
    (tmp_path / "config.json").write_text(json.dumps({**args, "model_type": "llama9000",
                                                      "architectures": ["Llama9000ForCausalLM"]}))
    with pytest.raises(ValueError) as info:
        load_model(tmp_path)
    exc = info.value
    assert exc._enrich["mechanism"] == "entrypoint:mlx-lm.load-model"
    assert note_of(exc).startswith("[mlx-lm/model-type-unsupported] The installed mlx-lm has no model class for "
                                   "model_type 'llama9000'")
