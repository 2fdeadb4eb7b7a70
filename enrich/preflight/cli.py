"""``enrich preflight [--json] [--gpu NAME | --gpu-memory GIB] [--gpus N] -- ENGINE COMMAND...``

Exit status: 0 nothing predicted to fail, 1 something is, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from enrich.preflight.flags import LaunchError
from enrich.preflight.gpu import KNOWN, GpuError
from enrich.preflight.model import ModelError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="enrich preflight", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help='one JSON object: {"schema": 1, "findings": [...], "plan": {...}}')
    which = p.add_mutually_exclusive_group()
    which.add_argument("--gpu", metavar="NAME", help=f"GPU model when NVML is not available: {', '.join(KNOWN)}")
    which.add_argument("--gpu-memory", metavar="GIB", type=float, help="GPU memory in GiB, when the model is not listed")
    p.add_argument("--gpus", metavar="N", type=int, help="GPUs available (bounds the TP sizes suggested)")
    p.add_argument("--engine-version", metavar="VER", help="the engine release to predict for (default: installed)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- the engine's launch command")
    return p


def main(argv: list[str] | None = None) -> int:
    from enrich.preflight.check import pick_gpu, preflight
    from enrich.preflight.report import text

    args = parser().parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("enrich preflight: give the launch command after --", file=sys.stderr)
        return 2
    try:
        gpu = pick_gpu(args.gpu, args.gpu_memory, args.gpus)
        report = preflight(command, gpu=gpu, engine_version_text=args.engine_version)
    except (LaunchError, ModelError, GpuError) as exc:
        print(f"enrich preflight: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.as_json(), indent=2) if args.json else text(report))
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
