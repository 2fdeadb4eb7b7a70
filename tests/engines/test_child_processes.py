"""End to end: a command started with `enrich run` fails in a child process with a catalog error,
and what the child writes to its log carries the note (no code change in the command)."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import logging, multiprocessing as mp, sys

    def load_torch_checkpoint():          # runs in a spawned worker, like an engine's model loader
        import transformers
        from transformers.models.llama.modeling_llama import LlamaForCausalLM
        def llama(kv):
            return LlamaForCausalLM(transformers.LlamaConfig(hidden_size=64, intermediate_size=128,
                num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=kv, vocab_size=128))
        llama(2).load_state_dict(llama(4).state_dict())

    def load_mlx_weights(path):
        import mlx.core as mx
        from mlx.utils import tree_flatten
        from mlx_lm.models.llama import Model, ModelArgs
        model = Model(ModelArgs(model_type="llama", hidden_size=64, num_hidden_layers=1, intermediate_size=128,
                                num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=128))
        weights = dict(tree_flatten(model.parameters()))
        weights["model.extra.weight"] = mx.ones((4,))
        mx.save_safetensors(path, weights)
        try:
            model.load_weights(path)
        except ValueError:
            logging.exception("model load failed")      # the engine's own logging, no enrich filter

    if __name__ == "__main__":
        logging.basicConfig(format="[worker] %(levelname)s %(message)s")
        worker = mp.get_context("spawn").Process(target=load_torch_checkpoint)
        worker.start()
        worker.join()
        load_mlx_weights(sys.argv[1])
""")


def test_notes_reach_the_logs_of_child_processes(tmp_path):
    pytest.importorskip("transformers")
    pytest.importorskip("mlx_lm")
    (tmp_path / "serve.py").write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "enrich", "run", "--", sys.executable, str(tmp_path / "serve.py"),
                          str(tmp_path / "w.safetensors")], capture_output=True, text=True, timeout=300)
    log = out.stderr
    # the spawned worker's uncaught error, as multiprocessing prints it
    assert "Process SpawnProcess-1:" in log
    assert "[torch/state-dict-size-mismatch] LlamaForCausalLM and the checkpoint disagree: k_proj" in log
    # the main process's logged error
    assert "[worker] ERROR model load failed" in log
    assert "[mlx/load-weights-unexpected]" in log
