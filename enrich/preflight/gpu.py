"""The GPUs: from NVML when nvidia-ml-py is installed (no CUDA context, no torch), else from a name.

Memory figures are what CUDA reports as the device's total (``cudaMemGetInfo``), the number the
engines multiply by their memory fraction; it is a little below the marketing size.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gib: float                # total, as CUDA reports it
    capability: str                  # "8.9"; ROCm devices carry the capability vLLM assigns them
    count: int | None = None         # GPUs visible, when known
    free_gib: float | None = None    # free on the fullest-used GPU, when measured
    source: str = "table"            # "nvml", "table" or "memory"

    @property
    def capability_int(self) -> int:
        major, _, minor = self.capability.partition(".")
        return int(major) * 10 + int(minor or 0)


# name -> (total GiB as CUDA reports it, compute capability)
KNOWN = {
    "H100-80GB": (79.10, "9.0"), "H100": (79.10, "9.0"), "H200": (139.81, "9.0"), "H20": (94.99, "9.0"),
    "B200": (178.35, "10.0"), "A100-80GB": (79.15, "8.0"), "A100-40GB": (39.39, "8.0"),
    "L4": (22.05, "8.9"), "L40S": (44.39, "8.9"), "L40": (44.39, "8.9"), "A10G": (21.99, "8.6"),
    "A10": (21.99, "8.6"), "A6000": (47.53, "8.6"), "A40": (44.35, "8.6"), "RTX4090": (23.64, "8.9"),
    "RTX3090": (23.58, "8.6"), "RTX4060": (8.00, "8.9"), "T4": (14.75, "7.5"), "V100-32GB": (31.74, "7.0"),
    "V100-16GB": (15.77, "7.0"), "P40": (23.87, "6.1"), "P100": (15.89, "6.0"),
    "MI300X": (191.98, "9.4"), "MI325X": (255.98, "9.4"), "MI250X": (63.98, "9.0"),
}


class GpuError(ValueError):
    pass


def _key(name: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", name.upper())


def from_name(name: str, count: int | None = None) -> Gpu:
    wanted = _key(name)
    for known, (memory, capability) in KNOWN.items():
        if _key(known) == wanted:
            return Gpu(known, memory, capability, count)
    raise GpuError(f"--gpu {name}: not a GPU preflight knows ({', '.join(KNOWN)}); use --gpu-memory GIB instead")


def from_memory(gib: float, count: int | None = None) -> Gpu:
    if not gib > 0:
        raise GpuError(f"--gpu-memory {gib}: must be a positive number of GiB")
    return Gpu(f"{gib:g} GiB GPU", float(gib), "", count, source="memory")


def from_nvml() -> Gpu | None:
    """The visible GPUs through NVML; None when NVML or a GPU is not there."""
    try:
        import pynvml   # nvidia-ml-py, the enrich[nvml] extra
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - no driver, no GPU: nothing to say
        return None
    try:
        indexes = _visible(pynvml.nvmlDeviceGetCount())
        if not indexes:
            return None
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in indexes]
        first = handles[0]
        name = pynvml.nvmlDeviceGetName(first)
        name = name.decode() if isinstance(name, bytes) else name
        major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(first)
        infos = [pynvml.nvmlDeviceGetMemoryInfo(h) for h in handles]
        total = min(i.total for i in infos) / 2**30
        free = min(i.free for i in infos) / 2**30
        return Gpu(name, round(total - _CUDA_RESERVE_GIB, 2), f"{major}.{minor}", len(handles), round(free, 2), "nvml")
    except Exception:  # noqa: BLE001
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass


_CUDA_RESERVE_GIB = 0.55   # NVML's total minus what cudaMemGetInfo reports on current drivers


def _visible(count: int) -> list[int]:
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return list(range(count))
    picked = []
    for part in value.split(","):
        part = part.strip()
        if not part.isdigit():
            break   # a UUID or an invalid entry: CUDA stops at the first one it cannot read
        if int(part) < count:
            picked.append(int(part))
    return picked
