"""Real GPU failures, each raised by the library that raises it in production."""

import subprocess
import sys
import textwrap


def cuda_out_of_memory():
    import torch
    total = torch.cuda.get_device_properties(0).total_memory
    torch.empty(int(total * 1.5), dtype=torch.uint8, device="cuda")


def triton_out_of_shared_memory():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
        b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
        tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], tl.dot(a, b))

    n = 512   # 512x512 fp32 tiles, several pipeline stages: far beyond 227 KiB of shared memory
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    matmul_kernel[(1,)](a, b, torch.empty_like(a), BLOCK=n, num_stages=4)


def triton_compilation_error():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * scale_factor, mask=offs < n)  # noqa: F821

    x = torch.ones(128, device="cuda")
    scale_kernel[(1,)](x, 128, BLOCK=128)


CHILD = {
    # Both poison the CUDA context, so each runs in a process of its own.
    "device_side_assert": """
        import torch
        x = torch.zeros(4, device="cuda")
        idx = torch.tensor([7], device="cuda")
        x[idx] = 1.0
        torch.cuda.synchronize()
    """,
    "illegal_memory_access": """
        import torch, triton, triton.language as tl
        @triton.jit
        def poke(x_ptr):
            tl.store(x_ptr + (1 << 40), 1.0)
        x = torch.zeros(1, device="cuda")
        poke[(1,)](x)
        torch.cuda.synchronize()
    """,
}


def run_child(name: str) -> subprocess.CompletedProcess:
    """Run a context-poisoning failure with enrich installed; its traceback comes back as text.
    (A file, not -c: Triton reads the source of its kernels.)"""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write("import enrich; enrich.install()\n" + textwrap.dedent(CHILD[name]))
    return subprocess.run([sys.executable, script.name], capture_output=True, text=True, timeout=300)


def duplicate_gpu_rank(rank: int, port: int) -> None:
    """One of two ranks put on the same GPU (a wrong CUDA_VISIBLE_DEVICES or device map): NCCL
    refuses at its first collective; torch.multiprocessing.spawn carries the traceback to the parent."""
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    tensor = torch.ones(1, device="cuda")
    dist.all_reduce(tensor)
    torch.cuda.synchronize()


def sdpa_flash_only_float32():
    """Attention patched to force the flash backend on float32 inputs: every allowed kernel refuses."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.randn(1, 8, 128, 64, device="cuda")
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        F.scaled_dot_product_attention(q, q, q)
