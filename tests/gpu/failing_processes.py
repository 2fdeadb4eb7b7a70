"""Record the output of real failing processes on a CUDA machine, for the log reader.

Each scenario is a script run as its own process (alone, under torchrun, or under
torch.multiprocessing), without enrich, its stdout and stderr captured together as a terminal or a
container log would show them. ``expect`` is the catalog entry the log should be explained by,
written before the first recording. Usage (on the GPU machine):

    python tests/gpu/failing_processes.py OUT.json [--under-enrich] [NAME ...]

``--under-enrich`` runs each one under ``enrich run`` instead, to see the notes enrich attaches in
the live processes (tests/fixtures/processes/enriched.json).

The recordings live in tests/fixtures/processes/ (one .log each, labels in labels.json).
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Scenario:
    name: str
    expect: list[str]
    script: str
    launcher: str = "python"          # python | python-without-uvm | torchrun1 | torchrun2
    env: dict[str, str] = field(default_factory=dict)
    hold_port: bool = False           # a listener holds the rendezvous port first


TRITON_POKE = """
import torch, triton, triton.language as tl

@triton.jit
def poke(x_ptr, offset):
    tl.store(x_ptr + offset, 1.0)

x = torch.zeros(16, device="cuda")
poke[(1,)](x, 2**40)
torch.cuda.synchronize()
"""

# a gather whose kernel asserts that every token id is inside the vocabulary, launched on one past it
TRITON_GATHER = """import torch, triton, triton.language as tl

@triton.jit
def gather_kernel(table_ptr, ids_ptr, out_ptr, vocab):
    token = tl.load(ids_ptr + tl.arange(0, 4))
    tl.device_assert(token < vocab, "token id past the vocabulary")
    tl.store(out_ptr + tl.arange(0, 4), tl.load(table_ptr + token))

table = torch.randn(100, device="cuda")
ids = torch.tensor([1, 2, 3, 150], device="cuda", dtype=torch.int32)
out = torch.empty(4, device="cuda")
gather_kernel[(1,)](table, ids, out, 100)
"""

# a float32 load from one byte past the start of a tensor: an address no 4-byte access may use
TRITON_SHIFTED_LOAD = """
import torch, triton, triton.language as tl

@triton.jit
def read_shifted(x_ptr, out_ptr, shift):
    byte_ptr = x_ptr.to(tl.pointer_type(tl.uint8)) + shift
    tl.store(out_ptr, tl.load(byte_ptr.to(tl.pointer_type(tl.float32))))

x = torch.zeros(16, device="cuda")
out = torch.empty(1, device="cuda")
read_shifted[(1,)](x, out, 3)
"""

def one_instruction(kernel: str, ptx: str, launch_options: str = "") -> str:
    """A script whose Triton kernel runs the PTX instruction ``ptx`` in each thread, then stores its
    input back."""
    return f"""
import torch, triton, triton.language as tl

@triton.jit
def {kernel}(x_ptr):
    x = tl.load(x_ptr)
    y = tl.inline_asm_elementwise("{ptx}\\n\\tmov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=False, pack=1)
    tl.store(x_ptr, y)

x = torch.zeros(1, device="cuda", dtype=torch.int32)
{kernel}[(1,)](x{launch_options})
"""


# a kernel that stops on a trap instruction: the generic failure of a kernel that aborts
TRITON_TRAP = one_instruction("abort_kernel", "trap;")
# a warpgroup fence (Hopper's wgmma.fence) run by one warp, not the four of a warpgroup: an
# instruction the GPU refuses, as it does a kernel built or launched wrong for it
TRITON_WARPGROUP_FENCE = (one_instruction("stop_kernel", "wgmma.fence.sync.aligned;", ", num_warps=1")
                          + "torch.cuda.synchronize()\n")

# a kernel compiled at run time (torch's NVRTC wrapper) whose threads each keep 96 floats live (read
# in order, used in reverse), launched as one block of 1024 threads: about 100 registers a thread,
# more than a block of that size may have
NVRTC_REGISTER_HOG = """
import torch

source = \"\"\"
extern "C" __global__ void hold_registers(const volatile float* x, float* y) {
    float r[96];
    #pragma unroll
    for (int i = 0; i < 96; ++i) r[i] = x[threadIdx.x * 96 + i];
    float acc = 1.0f;
    #pragma unroll
    for (int i = 95; i >= 0; --i) acc = acc * r[i] + 1.0f;
    y[threadIdx.x] = acc;
}
\"\"\"
kernel = torch.cuda._compile_kernel(source, "hold_registers")
x = torch.randn(1024 * 96, device="cuda")
y = torch.empty(1024, device="cuda")
kernel(grid=(1, 1, 1), block=(1024, 1, 1), args=[x, y])
torch.cuda.synchronize()
"""

# an extension kernel that gives each element of a row its own thread, launched on rows of 4096
# (a hidden size): more threads in a block than CUDA allows (1024)
WIDE_BLOCK_EXTENSION = """
import torch
from torch.utils.cpp_extension import load_inline

cuda_source = \"\"\"
#include <c10/cuda/CUDAException.h>

__global__ void scale_rows(float* x, float factor) {
    x[blockIdx.x * blockDim.x + threadIdx.x] *= factor;
}

void scale(torch::Tensor x, double factor) {
    scale_rows<<<x.size(0), x.size(1)>>>(x.data_ptr<float>(), factor);   // one thread an element
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}
\"\"\"
ext = load_inline("scale_rows_ext", cpp_sources="void scale(torch::Tensor x, double factor);",
                  cuda_sources=cuda_source, functions=["scale"])
hidden = torch.randn(8, 4096, device="cuda")
ext.scale(hidden, 0.5)
"""


def on_a_full_gpu(setup: str, first_use: str) -> str:
    """A script that runs ``setup``, fills the GPU (64 MiB blocks, then 1 MiB ones) and then makes
    ``first_use``: a library's first call, which needs GPU memory outside PyTorch's allocator."""
    return ('import torch\ntorch.zeros(1, device="cuda")\n' + setup + "\nhogs = []\n"
            + 'try:\n    while True:\n        hogs.append(torch.empty(64 << 20, dtype=torch.uint8, device="cuda"))\n'
            + "except torch.OutOfMemoryError:\n    pass\n"
            + 'try:\n    while True:\n        hogs.append(torch.empty(1 << 20, dtype=torch.uint8, device="cuda"))\n'
            + "except torch.OutOfMemoryError:\n    pass\n" + first_use + "\n")


SCENARIOS = [
    Scenario("cuda-oom-alloc", ["torch/cuda-oom"], """
        import torch
        total = torch.cuda.get_device_properties(0).total_memory
        weights = torch.empty(int(total * 0.8), dtype=torch.uint8, device="cuda")
        activations = torch.empty(int(total * 0.3), dtype=torch.uint8, device="cuda")
    """),
    Scenario("cuda-oom-torchrun", ["torch/cuda-oom"], """
        import os, torch
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        x = torch.randn(200_000, 200_000, device="cuda")
    """, launcher="torchrun1"),
    Scenario("device-assert-embedding", ["torch/cuda-device-assert"], """
        import torch
        embedding = torch.nn.Embedding(32000, 64).cuda()
        token_ids = torch.tensor([[1, 31999, 32005]], device="cuda")   # an added token past the vocabulary
        hidden = embedding(token_ids)
        print(hidden.sum().item())
    """),
    Scenario("device-assert-multinomial", ["torch/cuda-device-assert"], """
        import torch
        logits = torch.tensor([[1.0, float("nan"), 0.5]], device="cuda")
        probs = torch.softmax(logits, dim=-1)
        next_token = torch.multinomial(probs, 1)
        print(next_token.item())
    """),
    Scenario("illegal-address-triton", ["torch/cuda-illegal-address"], TRITON_POKE),
    Scenario("misaligned-address-triton", ["torch/cuda-misaligned-address"],
             TRITON_SHIFTED_LOAD + "torch.cuda.synchronize()\n"),
    Scenario("launch-failure-trap", ["torch/cuda-launch-failure"], TRITON_TRAP + "torch.cuda.synchronize()\n"),
    Scenario("illegal-instruction-warpgroup", ["torch/cuda-illegal-instruction"], TRITON_WARPGROUP_FENCE),
    Scenario("launch-out-of-resources-registers", ["torch/cuda-launch-out-of-resources"], NVRTC_REGISTER_HOG),
    Scenario("invalid-configuration-wide-block", ["torch/cuda-invalid-configuration"], WIDE_BLOCK_EXTENSION,
             env={"TORCH_CUDA_ARCH_LIST": "9.0"}),
    Scenario("graph-capture-sync", ["torch/cuda-graph-capture-unsupported"], """
        import torch
        static_x = torch.ones(8, device="cuda")
        graph = torch.cuda.CUDAGraph()
        torch.cuda.synchronize()
        with torch.cuda.graph(graph):
            y = static_x * 2
            if y.sum().item() > 0:     # reads a value back to the CPU while the stream is captured
                y = y + 1
    """),
    Scenario("nccl-cpu-tensor", ["torch/nccl-cpu-tensor"], """
        import os, torch, torch.distributed as dist
        dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
        dist.all_reduce(torch.ones(4))     # left on the CPU
    """, launcher="torchrun1"),
    Scenario("store-wait-timeout-nccl-id", ["torch/store-wait-timeout"], """
        import datetime, os, time, torch, torch.distributed as dist
        rank = int(os.environ["RANK"])
        dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20))
        if rank == 0:
            time.sleep(60)                 # still loading: never reaches the first collective in time
        else:
            torch.cuda.set_device(0)
            dist.all_reduce(torch.ones(4, device="cuda"))
    """, launcher="torchrun2"),
    Scenario("triton-cpu-pointer", ["triton/pointer-not-on-gpu"], """
        import torch, triton, triton.language as tl

        @triton.jit
        def double(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

        x = torch.ones(64)                 # never moved to the GPU
        double[(1,)](x, 64, BLOCK=64)
    """),
    Scenario("inductor-no-triton", ["torch/inductor-no-triton"], """
        import sys
        sys.modules["triton"] = None       # as in an environment where Triton is not installed
        import torch

        @torch.compile
        def gelu(x):
            return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x ** 3)))

        print(gelu(torch.ones(8, device="cuda")))
    """),
    Scenario("cublas-no-memory", ["torch/cublas-handle-no-memory"],
             on_a_full_gpu('a = torch.randn(64, 64, device="cuda")', "print((a @ a).sum().item())")),
    Scenario("triton-cache-zeroed-cubin", ["triton/invalid-kernel-image"], """
        import glob, os, subprocess, sys, tempfile
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
        with open("add_one_kernel.py", "w") as module:
            module.write(
                "import torch, triton, triton.language as tl\\n"
                "@triton.jit\\n"
                "def add_one(x_ptr, n, BLOCK: tl.constexpr):\\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\\n"
                "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)\\n"
                "x = torch.zeros(1000, device='cuda')\\n"
                "add_one[(4,)](x, 1000, BLOCK=256)\\n"
                "print(x.sum().item())\\n")
        subprocess.run([sys.executable, "add_one_kernel.py"], check=True)   # compiles into the cache
        # the cached machine code zeroed past its ELF header, its size kept: what a crash before the
        # file system wrote the file's data leaves (a cubin cut short makes the driver hang instead)
        for path in glob.glob(os.path.join(os.environ["TRITON_CACHE_DIR"], "*", "*.cubin")):
            with open(path, "rb") as f:
                code = f.read()
            with open(path, "wb") as f:
                f.write(code[:64] + bytes(len(code) - 64))
        import add_one_kernel
    """),
    Scenario("cudnn-no-memory", ["torch/cudnn-failed"], on_a_full_gpu(
        'image, kernel = torch.randn(1, 3, 32, 32, device="cuda"), torch.randn(8, 3, 3, 3, device="cuda")',
        "print(torch.nn.functional.conv2d(image, kernel).sum().item())   # cuDNN's first use")),
    Scenario("cuda-init-no-uvm", ["torch/cuda-init-failed"], """
        import torch
        torch.zeros(1, device="cuda")
    """, launcher="python-without-uvm"),
    Scenario("invalid-device-ordinal", ["torch/cuda-invalid-device"], """
        import torch
        torch.cuda.set_device(3)
        torch.zeros(1, device="cuda")
    """),
    Scenario("triton-shared-memory", ["triton/oor-shared-memory"], """
        import torch, triton, triton.language as tl

        @triton.jit
        def matmul_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
            b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
            tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], tl.dot(a, b))

        a, b = torch.randn(512, 512, device="cuda"), torch.randn(512, 512, device="cuda")
        matmul_kernel[(1,)](a, b, torch.empty_like(a), BLOCK=512, num_stages=4)
    """),
    Scenario("triton-compilation-error", ["triton/compilation-error"], """
        import torch, triton, triton.language as tl

        @triton.jit
        def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) * scale_factor, mask=offs < n)

        x = torch.ones(64, device="cuda")
        scale_kernel[(1,)](x, 64, BLOCK=64)
    """),
    Scenario("sdpa-no-kernel", ["torch/sdpa-no-kernel"], """
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
        q = torch.randn(1, 8, 128, 64, device="cuda")          # float32: flash attention takes half types only
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            torch.nn.functional.scaled_dot_product_attention(q, q, q)
    """),
    Scenario("sdpa-gqa-heads", ["torch/sdpa-gqa-heads"], """
        import torch
        q = torch.randn(1, 32, 16, 64, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 6, 16, 64, device="cuda", dtype=torch.bfloat16)
        torch.nn.functional.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
    """),
    Scenario("matmul-bf16-fp16", ["torch/matmul-dtype-mismatch"], """
        import torch
        proj = torch.nn.Linear(4096, 4096, bias=False, device="cuda", dtype=torch.float16)
        hidden = torch.randn(2, 4096, device="cuda", dtype=torch.bfloat16)
        proj(hidden)
    """),
    Scenario("nccl-duplicate-gpu", ["torch/nccl-duplicate-gpu"], """
        import torch, torch.distributed as dist
        torch.cuda.set_device(0)                                   # every rank on GPU 0
        dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
        t = torch.ones(1, device="cuda")
        dist.all_reduce(t)
        torch.cuda.synchronize()
        dist.destroy_process_group()
    """, launcher="torchrun2", env={"NCCL_DEBUG": "WARN"}),
    Scenario("nccl-no-socket-interface", ["torch/nccl-no-socket-interface"], """
        import os, torch, torch.distributed as dist
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl")
        t = torch.ones(1, device="cuda")
        dist.all_reduce(t)
        torch.cuda.synchronize()
    """, launcher="torchrun1", env={"NCCL_SOCKET_IFNAME": "ib7", "NCCL_DEBUG": "WARN"}),
    Scenario("tcpstore-port-in-use", ["torch/tcpstore-port-in-use"], """
        import os, torch, torch.distributed as dist
        dist.init_process_group("nccl")
    """, launcher="torchrun1", hold_port=True),
    Scenario("tcpstore-clients-timeout", ["torch/tcpstore-clients-timeout"], """
        import datetime, torch, torch.distributed as dist
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29611", world_size=2, rank=0,
                                timeout=datetime.timedelta(seconds=15))
    """),
    Scenario("tcpstore-connect-timeout", ["torch/tcpstore-connect-timeout"], """
        import datetime, torch, torch.distributed as dist
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29612", world_size=2, rank=1,
                                timeout=datetime.timedelta(seconds=15))
    """),
    Scenario("spawn-child-oom", ["torch/cuda-oom"], """
        import torch, torch.multiprocessing as mp

        def load_shard(rank):
            torch.cuda.set_device(rank)
            total = torch.cuda.get_device_properties(rank).total_memory
            torch.empty(int(total * 1.2), dtype=torch.uint8, device="cuda")

        if __name__ == "__main__":
            mp.spawn(load_shard, nprocs=1)
    """),
    Scenario("cuda-forked-subprocess", ["torch/cuda-forked-subprocess"], """
        import multiprocessing as mp, torch

        def worker(_):
            return torch.ones(1, device="cuda").item()

        if __name__ == "__main__":
            torch.zeros(1, device="cuda")
            with mp.get_context("fork").Pool(1) as pool:
                print(pool.map(worker, [0]))
    """),
    Scenario("tensor-device-mismatch", ["torch/tensor-device-mismatch"], """
        import torch
        embedding = torch.nn.Embedding(32000, 64).cuda()
        token_ids = torch.tensor([[1, 2, 3]])            # left on the CPU
        print(embedding(token_ids).sum().item())
    """),
    Scenario("nccl-no-visible-gpu", ["torch/cuda-no-gpus"], """
        import torch, torch.distributed as dist
        dist.init_process_group("nccl")
    """, launcher="torchrun1", env={"CUDA_VISIBLE_DEVICES": ""}),
    Scenario("torchrun-sigkill", ["process/killed"], """
        import os, signal, torch
        torch.zeros(1, device="cuda")
        os.kill(os.getpid(), signal.SIGKILL)
    """, launcher="torchrun1"),
    Scenario("torchrun-segfault", ["process/segfault"], """
        import ctypes, torch
        torch.zeros(1, device="cuda")
        ctypes.string_at(0)
    """, launcher="torchrun1"),
    # recorded 2026-12-05; expectations written before the first recording
    Scenario("cuda-oom-async", ["torch/cuda-oom"], """
        import torch
        total = torch.cuda.get_device_properties(0).total_memory
        weights = torch.empty(int(total * 0.8), dtype=torch.uint8, device="cuda")
        activations = torch.empty(int(total * 0.3), dtype=torch.uint8, device="cuda")
    """, env={"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync"}),
    Scenario("cuda-oom-expandable", ["torch/cuda-oom"], """
        import torch
        total = torch.cuda.get_device_properties(0).total_memory
        weights = torch.empty(int(total * 0.8), dtype=torch.uint8, device="cuda")
        activations = torch.empty(int(total * 0.3), dtype=torch.uint8, device="cuda")
    """, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}),
    Scenario("cuda-error-oom-busy-gpu", ["torch/cuda-error-oom"], """
        import subprocess, sys, torch
        free, _ = torch.cuda.mem_get_info()
        held = torch.empty(free - (64 << 20), dtype=torch.uint8, device="cuda")   # another server's weights
        second = subprocess.run([sys.executable, "-c", "import torch; torch.zeros(1, device='cuda'); torch.randn(64, 64, device='cuda') @ torch.randn(64, 64, device='cuda')"])
        sys.exit(second.returncode)
    """),
    Scenario("device-assert-triton", ["torch/cuda-device-assert"], TRITON_GATHER + "torch.cuda.synchronize()\n",
             env={"TRITON_DEBUG": "1"}),
    # the same assert, noticed by Triton's launcher at the next launch: "Triton Error [CUDA]: ..."
    Scenario("device-assert-triton-launch", ["torch/cuda-device-assert"], "import time\n" + TRITON_GATHER
             + "time.sleep(2)                                  # the first kernel has failed by now; nothing synchronised\n"
             + "gather_kernel[(1,)](table, ids, out, 100)\n", env={"TRITON_DEBUG": "1"}),
    Scenario("triton-oor-threads", ["triton/oor-threads"], """
        import torch, triton, triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))

        x = torch.randn(4096, device="cuda")
        add_kernel[(1,)](x, x, torch.empty_like(x), BLOCK=4096, num_warps=64)
    """),
    Scenario("triton-incompatible-operands", ["triton/incompatible-operand-types"], """
        import torch, triton, triton.language as tl

        @triton.jit
        def shift_kernel(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            ptr = x_ptr + 0.5          # a float offset on a pointer
            tl.store(ptr + offs, tl.load(x_ptr + offs))

        x = torch.randn(64, device="cuda")
        shift_kernel[(1,)](x, BLOCK=64)
    """),
    Scenario("triton-autotune-no-configs", ["triton/autotune-no-configs"], """
        import torch, triton, triton.language as tl

        def keep_fitting(configs, named_args, **kwargs):
            return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]]

        @triton.autotune(configs=[triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 2048})], key=["n"],
                         prune_configs_by={"early_config_prune": keep_fitting})
        @triton.jit
        def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

        x = torch.randn(100, device="cuda")
        copy_kernel[(1,)](x, torch.empty_like(x), 100)
    """),
    Scenario("sdpa-dtype-mismatch", ["torch/sdpa-dtype-mismatch"], """
        import torch
        q = torch.randn(1, 8, 16, 64, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 8, 16, 64, device="cuda", dtype=torch.float16)     # a KV cache kept in fp16
        torch.nn.functional.scaled_dot_product_attention(q, kv, kv)
    """),
    Scenario("load-weights-only-global", ["torch/load-weights-only-global"], """
        import dataclasses, torch

        @dataclasses.dataclass
        class TrainState:
            step: int
            lr: float

        torch.save({"model": torch.nn.Linear(4, 4).state_dict(), "state": TrainState(100, 3e-4)}, "ckpt.pt")
        torch.load("ckpt.pt", map_location="cuda")
    """),
    Scenario("load-lfs-pointer", ["torch/load-not-a-checkpoint"], """
        import pathlib, torch
        pathlib.Path("pytorch_model.bin").write_text(
            "version https://git-lfs.github.com/spec/v1\\n"
            "oid sha256:4d5c2b6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c\\n"
            "size 498637331\\n")          # cloned without git-lfs
        torch.load("pytorch_model.bin", map_location="cuda")
    """),
    Scenario("load-truncated-checkpoint", ["torch/load-corrupt-archive"], """
        import os, torch
        torch.save(torch.nn.Linear(1024, 1024).state_dict(), "model.pt")
        os.truncate("model.pt", os.path.getsize("model.pt") // 2)        # a download cut short
        torch.load("model.pt", map_location="cuda")
    """),
    Scenario("state-dict-size-mismatch", ["torch/state-dict-size-mismatch"], """
        import torch
        model = torch.nn.Sequential(torch.nn.Embedding(32000, 64), torch.nn.Linear(64, 32000)).cuda()
        checkpoint = torch.nn.Sequential(torch.nn.Embedding(32064, 64), torch.nn.Linear(64, 32064)).state_dict()
        model.load_state_dict(checkpoint)
    """),
    Scenario("dist-env-missing", ["torch/dist-env-missing"], """
        import torch, torch.distributed as dist
        dist.init_process_group("nccl")
    """),
    Scenario("default-group-not-initialized", ["torch/default-group-not-initialized"], """
        import torch, torch.distributed as dist
        t = torch.ones(1, device="cuda")
        dist.all_reduce(t)
    """),
    Scenario("gloo-interface-not-found", ["torch/gloo-interface-not-found"], """
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
    """, launcher="torchrun1", env={"GLOO_SOCKET_IFNAME": "ib7"}),
    Scenario("dataloader-bus-error", ["process/bus-error"], """
        import os, signal, torch
        from torch.utils.data import DataLoader, Dataset

        class Shards(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                os.kill(os.getpid(), signal.SIGBUS)      # a memory-mapped shard truncated under the reader
                return torch.zeros(1)

        if __name__ == "__main__":
            for batch in DataLoader(Shards(), num_workers=1):
                print(batch.cuda().sum().item())
    """),
    Scenario("torchrun-sigill", ["process/illegal-instruction"], """
        import os, signal, torch
        torch.zeros(1, device="cuda")
        os.kill(os.getpid(), signal.SIGILL)
    """, launcher="torchrun1"),
    Scenario("torchrun-abort", ["process/native-abort"], """
        import os, torch
        torch.zeros(1, device="cuda")
        os.abort()
    """, launcher="torchrun1"),
]

LAUNCHERS = {
    "python": lambda script, port: [sys.executable, script],
    # a container that was given the GPU but not /dev/nvidia-uvm (needs root: a private mount namespace)
    "python-without-uvm": lambda script, port: ["unshare", "--mount", "sh", "-c",
                                                f"mount --bind /dev/null /dev/nvidia-uvm && exec {sys.executable} {script}"],
    "torchrun1": lambda script, port: [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
                                       "--nproc-per-node", "1", "--master-addr", "127.0.0.1",
                                       "--master-port", str(port), script],
    "torchrun2": lambda script, port: [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
                                       "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
                                       "--master-port", str(port), script],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def record(scenario: Scenario, folder: Path, under_enrich: bool = False) -> dict:
    script = folder / f"{scenario.name.replace('-', '_')}.py"
    script.write_text(textwrap.dedent(scenario.script).lstrip())
    port = free_port()
    holder = None
    if scenario.hold_port:
        holder = socket.socket()
        holder.bind(("0.0.0.0", port))
        holder.listen()
    env = {**os.environ, **scenario.env, "PYTHONUNBUFFERED": "1"}
    start = time.monotonic()
    try:
        command = LAUNCHERS[scenario.launcher](str(script), port)
        if under_enrich:
            command = [sys.executable, "-m", "enrich", "run", "--", *command]
        done = subprocess.run(command, cwd=folder, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        output, status = done.stdout.decode("utf-8", "replace"), done.returncode
    except subprocess.TimeoutExpired as exc:
        output, status = (exc.stdout or b"").decode("utf-8", "replace") + "\n<timed out>\n", None
    finally:
        if holder:
            holder.close()
    return {"name": scenario.name, "expect": scenario.expect, "launcher": scenario.launcher,
            "env": scenario.env, "script": script.read_text(), "exit_status": status,
            "seconds": round(time.monotonic() - start, 1), "output": output}


def main() -> None:
    import torch
    import triton
    under_enrich = "--under-enrich" in sys.argv[2:]
    wanted = set(sys.argv[2:]) - {"--under-enrich"}
    machine = {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
               "gpu": torch.cuda.get_device_name(0), "nccl": ".".join(map(str, torch.cuda.nccl.version())),
               "python": platform.python_version()}
    records = []
    with tempfile.TemporaryDirectory(prefix="failing-") as tmp:
        for scenario in SCENARIOS:
            if wanted and scenario.name not in wanted:
                continue
            records.append(record(scenario, Path(tmp), under_enrich))
            print(f"{scenario.name}: exit {records[-1]['exit_status']} in {records[-1]['seconds']} s", flush=True)
            # written after each one, so a run stopped by its time limit keeps what it recorded
            Path(sys.argv[1]).write_text(json.dumps({"machine": machine, "records": records}, indent=1))


if __name__ == "__main__":
    main()
