"""Throughput of a child's output through `enrich run` versus the same child run bare.

A child writes SIZE_MIB MiB (1 MiB lines) to stdout or to stderr; the benchmark reads it from a
pipe, as a log collector would, and reports MiB/s for both ways and their ratio. Stdout is
inherited by the child under the supervisor; stderr is copied through its tail ring.

    .venv/bin/python benchmarks/supervisor_passthrough.py [SIZE_MIB]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

SIZE_MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
CHILD = ("import os, sys\nline = b'x' * 1048575 + b'\\n'\nfd = int(sys.argv[1])\n"
         "for _ in range({n}):\n    view = memoryview(line)\n"
         "    while view:\n        view = view[os.write(fd, view):]\n").format(n=SIZE_MIB)


def measure(fd: int, supervised: bool) -> float:
    command = [sys.executable, "-c", CHILD, str(fd)]
    if supervised:
        command = [sys.executable, "-m", "enrich", "run", "--", *command]
    pipes = {"stdout": subprocess.PIPE if fd == 1 else subprocess.DEVNULL,
             "stderr": subprocess.PIPE if fd == 2 else subprocess.DEVNULL}
    start = time.perf_counter()
    proc = subprocess.Popen(command, **pipes)
    stream = proc.stdout if fd == 1 else proc.stderr
    total = 0
    while chunk := stream.read1(1 << 20):
        total += len(chunk)
    proc.wait()
    elapsed = time.perf_counter() - start
    assert total == SIZE_MIB << 20, total
    return SIZE_MIB / elapsed


def main() -> None:
    results = {}
    for name, fd in (("stdout", 1), ("stderr", 2)):
        bare = max(measure(fd, False) for _ in range(2))
        supervised = max(measure(fd, True) for _ in range(2))
        results[name] = {"bare_mib_s": round(bare), "supervised_mib_s": round(supervised),
                         "ratio": round(supervised / bare, 3)}
    print(json.dumps({"size_mib": SIZE_MIB, "cpus": os.cpu_count(), **results}, indent=2))


if __name__ == "__main__":
    main()
