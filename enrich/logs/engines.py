"""Which program a pasted text comes from, by its paths and log lines. sglang raised copies of
vLLM's messages for years (the model registry, the FP8 block checks): in a text that shows only
sglang, a vLLM entry matched on the words alone explains the wrong engine, and the other way round.
ptxas says the same words under Triton as under XLA, tinygrad, Numba or an MLIR pipeline of one's
own, nvcc and ninja under FlashInfer's JIT as under sglang's (and under a build of FlashInfer's
sources), llama.cpp's ggml reports CUDA and Metal failures in the words torch and MLX use (as XLA,
CNTK and other CUDA programs do CUDA's), and Megatron and DeepSpeed check their parallel sizes in
sglang's words.

A text shows a program by its marks (paths, modules, log prefixes) and may name it in prose
("vllm 0.8.x", "VLLM部署"); ``Programs`` holds both, and says whose entry a message is: the
program's, a rival's copy, or nobody's to tell. ROCm's lead-in (``HIP``) refuses CUDA's entries."""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKS = {
    # source paths and modules, the launcher, the scheduler's log prefix "[2025-03-10 14:17:52 TP6] ",
    # the model runner's "Load weight end. avail mem=..." line
    "sglang": re.compile(r"\bsglang[./](?:srt|launch_server|bench_\w+)\b|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z]{2}\d+)+\]"
                         r"|Scheduler hit an exception|\bLoad weight end\. (?:type|avail mem)="),
    # source paths and modules, the log prefix "INFO 09-27 06:46:46 [engine.py:157]" (older releases
    # without the brackets), the worker and engine process tags
    "vllm": re.compile(r"\bvllm[./](?:engine|entrypoints|worker|v1|model_executor|executor|config|distributed)\b"
                       r"|\b(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.]+\.py:\d+\]"
                       r"|\((?:VllmWorker|EngineCore|RayWorkerVllm|Worker_TP\d+|APIServer)\b"),
    # the word anywhere: its paths, its kernels' names (triton_poi_...), its messages
    "triton": re.compile(r"(?i)triton"),
    # other compilers that run ptxas and CUDA themselves: XLA (jaxlib, TensorFlow's stream
    # executor), tinygrad, MLIR's GPU pipeline, Numba's CUDA target (and its nvJitLink binding)
    "compilers": re.compile(r"\bjaxlib\b|XlaRuntimeError|\btensorflow/(?:stream_executor|compiler)\b|\btinygrad\b|/tinycuda_"
                            r"|MlirCompilerError|gpu-lower-to-nvvm|\bnumba[.-]cuda\b|\bpynvjitlink\b"),
    # XLA assembling PTX itself (its stream executor's words, its source paths): under jax-triton
    # and Pallas, Triton writes the PTX and XLA's ptxas assembles it
    "xla-ptxas": re.compile(r"\bptxas exited with non-zero error code\b|\bxla/(?:service|stream_executor|pjrt)/"),
    "torch": re.compile(r"(?i)torch"),
    "mlx": re.compile(r"(?i)\bmlx"),
    # FlashInfer's JIT at work (its logger, its cache and source directories), and sglang's own JIT
    # kernels (sglang/jit_kernel, since 0.5.9), which nvcc and ninja fail in the same words
    "flashinfer": re.compile(r"\bflashinfer\.jit\b|[\\/]\.cache[\\/]flashinfer[\\/]|(?<![\w-])flashinfer[\\/](?:data|jit)[\\/]"),
    "sglang-jit": re.compile(r"\bsglang[\\/.]jit_kernel\b"),
    # training frameworks with their own tensor-parallel checks in sglang's words ("4 is not divisible
    # by 8"): Megatron (and Pai-Megatron-Patch), DeepSpeed, ColossalAI, by their paths and modules
    "trainers": re.compile(r"[\\/](?:megatron|megatron_patch|deepspeed|colossalai)[\\/]"
                           r"|\b(?:megatron\.core|deepspeed\.(?:runtime|utils|moe)|colossalai)\b"),
    # llama.cpp's ggml checks its own CUDA and Metal calls, in CUDA's and Metal's words
    "ggml": re.compile(r"\bggml[-_]|\bllama\.cpp\b|\bllama_(?:model|init|new_context|decode)\w*|\bllama-(?:server|cli)\b"),
    # a library's sources compiled into one's own program, not a kernel JIT-built on first use: a
    # CMake project's build (FetchContent's sources, make's stop), FlashInfer's headers vendored
    "source-build": re.compile(r"\bFetchContent_\w+|CMakeLists\.txt|\bcmake --build\b|\bCMake Error\b"
                               r"|/_deps/[\w.-]+-src/|\bmake\[\d+\]: \*\*\*|[\\/](?:third_party|3rdparty)[\\/]flashinfer[\\/]"),
    # other programs that check their own CUDA calls in CUDA's words: CNTK, Leela Chess Zero,
    # the container toolkit's hook, darknet, ONNX Runtime, MXNet, PaddlePaddle, CuPy, NVIDIA Warp,
    # TensorRT's runtime (trtexec, its "[executionContext.cpp::...]" errors); "CUDA failure N: <words>"
    # is ONNX Runtime's and CNTK's line (torch's says "CUDA error: ")
    "cuda-apps": re.compile(r"(?i)\bcntk\b|[\\/]lc0[\\/]|nvidia-container-cli\b|\blibnvidia-container\b|\bdarknet\b"
                            r"|\bonnxruntime\b|\bmxnet\b|\bpaddle(?:paddle)?\b|\bcupy\b"
                            r"|\bCUDAExecutionProvider\b|(?-i:\bCUDA failure \d+: )|(?-i:\bWarp CUDA error \d+: )"
                            r"|\btrtexec\b|\[executionContext\.cpp::"),
    # Lua Torch (Torch7): its CUDA backend cutorch, luarocks' build paths, its Lua modules; old
    # PyTorch's THC words are its, but a text on it always says "torch"
    "lua-torch": re.compile(r"\bcutorch\b|\bluarocks\b|[\\/]share[\\/]lua[\\/]5\.\d[\\/]"),
}
# ROCm's HIP names itself before errors it reports in CUDA's words ("Triton Error [HIP]: Code: 209,
# Messsage: no kernel image is available ..."), or after them (torch's ROCm build: "CUDA error: an
# illegal memory access was encountered\nSearch for `hipErrorIllegalAddress' ..."), whose CUDA
# causes and fixes are not its
HIP = re.compile(r"\[HIP\]|\bHIP error\b|\bhipError\w+")
ROCM_SEARCH = re.compile(r"^\s*Search for `hipError", re.M)     # the line torch's ROCm build prints after the message
# mlx-lm's entries go with MLX's marks (Programs.of names both from one search)
ALIASES = {"mlx": "mlx-lm"}
# a program whose entries a text of its rival's, not showing the program itself, does not get
RIVALS = {"sglang": {"vllm", "trainers"}, "vllm": {"sglang"}, "triton": {"compilers"}, "flashinfer": {"sglang-jit"},
          "torch": {"ggml"}, "mlx": {"ggml"}, "mlx-lm": {"ggml"}}
# entries of a program that more rivals share: torch's CUDA runtime, cuBLAS and cuDNN errors, which
# XLA, TensorFlow and the other CUDA programs word alike (not its NCCL ones, which NCCL words alike
# under any framework); FlashInfer's JIT build, whose compiler lines a build of its sources prints alike
RIVALS_BY_PREFIX = {("torch/cuda-", "torch/cublas-", "torch/cudnn-"): {"compilers", "cuda-apps"},
                    ("flashinfer/jit-",): {"source-build"}}
# rivals whose texts do not get the entry even where they show its program too: ptxas's words where
# XLA ran ptxas, whatever the text says of Triton (jax-triton's kernels); Lua Torch, whose texts
# say "torch" but whose fixes are not PyTorch's
OVERRULED_BY = {"triton/ptxas-": {"xla-ptxas"}, "torch/": {"lua-torch"}}


def reported_by_another(entry, lead: str) -> bool:
    """The words before the message on its line say another program reports it, in words the entry
    declares not its own (``not_after``: Triton's launcher refusing a kernel image it compiled)."""
    return entry.not_after is not None and entry.not_after.search(lead) is not None


def _rivals(entry_id: str) -> set[str]:
    """The programs whose texts, not showing the entry's program, do not get the entry."""
    more = (rivals for prefixes, rivals in RIVALS_BY_PREFIX.items() if entry_id.startswith(prefixes))
    return RIVALS.get(entry_id.split("/", 1)[0], set()).union(*more)


# the engine named in prose ("vllm 0.8.x", "VLLM部署"): too weak to refuse an entry (sglang's logs
# name vLLM, whose layers it imported), enough to choose between two engines' entries of one message
NAMES = {"sglang": re.compile(r"(?i)(?<![a-z])sglang(?![a-z])"), "vllm": re.compile(r"(?i)(?<![a-z])vllm(?![a-z])")}


@dataclass(frozen=True)
class Programs:
    """The programs a text shows by their marks, and the engines it names as a word."""
    shown: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()

    @classmethod
    def of(cls, marked: str, prose: str) -> Programs:
        """Marks read in ``marked``, names in ``prose`` (the peeled lines: a collector's prefix
        naming a pod "vllm-..." names nothing)."""
        shown = {name for name, mark in MARKS.items() if mark.search(marked)}
        return cls(frozenset(shown | {ALIASES[name] for name in shown & ALIASES.keys()}),
                   frozenset(name for name, word in NAMES.items() if word.search(prose)))

    def refuse(self, entry_id: str) -> bool:
        """The entry is a program's own, and the text shows a rival of that program but not it, or,
        showing neither, names a rival but not it (sglang's issue quoting its copy of vLLM's words),
        or shows a rival that overrules the program."""
        program = entry_id.split("/", 1)[0]
        rivals = _rivals(entry_id)
        if any(entry_id.startswith(prefix) and overruling & self.shown for prefix, overruling in OVERRULED_BY.items()):
            return True
        if program in self.shown:
            return False
        return bool(rivals & self.shown) or (program not in self.named and bool(rivals & self.named))

    def rivals_own(self, entry_id: str) -> list[str]:
        """The rival engines whose copy of the entry's words the text may be: those it shows, where
        it does not show the entry's program, or, showing neither, the only one it names."""
        program = entry_id.split("/", 1)[0]
        rivals = _rivals(entry_id)
        if program in self.shown:
            return []
        if rivals & self.shown:
            return sorted(rivals & self.shown)
        return sorted(rivals & self.named) if program not in self.named and len(rivals & self.named) == 1 else []

    def owns(self, program: str, rivals: set[str] | None = None) -> bool:
        """The text shows the program and none of its rivals (the fixed table's, unless given),
        or, showing neither, names the program and none of its rivals."""
        rivals = RIVALS.get(program, set()) if rivals is None else rivals
        if program in self.shown:
            return not rivals & self.shown
        return not rivals & (self.shown | self.named) and program in self.named
