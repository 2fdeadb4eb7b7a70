"""The wrappers real collectors and pastes put around log lines, as functions of the bare text."""

from __future__ import annotations

import json

TS = "2025-01-20T19:10:07.123456789Z"


def lines(text: str) -> list[str]:
    return text.splitlines()


def k8s_timestamps(text):
    return "".join(f"{TS} {line}\n" for line in lines(text))


def k8s_prefix(text):
    return "".join(f"[pod/vllm-7d9f8-abcde/vllm] {line}\n" for line in lines(text))


def k8s_both(text):
    return "".join(f"[pod/vllm-7d9f8-abcde/vllm] {TS} {line}\n" for line in lines(text))


def cri(text, width=40):
    """kubelet's CRI files; long lines split into P(artial) pieces ended by an F(ull) one."""
    out = []
    for line in lines(text):
        pieces = [line[i:i + width] for i in range(0, len(line), width)] or [""]
        out += [f"{TS} stderr {'P' if i < len(pieces) - 1 else 'F'} {p}\n" for i, p in enumerate(pieces)]
    return "".join(out)


def docker_json(text):
    return "".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": TS}) + "\n" for line in lines(text))


def journald(text):
    return "".join(f"Jun 11 01:50:31 gpu-node-7 dockerd[1234]: {line}\n" for line in lines(text))


def stern(text):
    return "".join(f"\x1b[32mvllm-7d9f8-abcde\x1b[0m \x1b[34mvllm\x1b[0m {line}\n" for line in lines(text))


def compose(text):
    return "".join(f"sglang-1  | {line}\n" for line in lines(text))


def ray(text):
    return "".join(f"\x1b[36m(RayWorkerWrapper pid=2417, ip=10.0.0.7)\x1b[0m {line}\n" for line in lines(text))


def torchrun(text):
    return "".join(f"[rank3]: {line}\n" for line in lines(text))


def slurm(text):
    return "".join(f"0: {line}\n" for line in lines(text))


def ci_timestamps(text):
    return "".join(f"2025-01-20T19:10:07.1234567Z {line}\n" for line in lines(text))


def markdown_quote(text):
    return "".join(f"> {line}\n" if line else ">\n" for line in lines(text))


def code_fence(text):
    return "```\n" + text.rstrip("\n") + "\n```\n"


def unknown_repeated_prefix(text):
    """A tag no token describes, repeated on every line."""
    return "".join(f"node-a7.cluster-x9 {line}\n" for line in lines(text))


def pytest_e(text):
    """pytest's failure report: every line of the captured error behind an "E" column."""
    return "".join(f"E       {line.rsplit(chr(13), 1)[-1]}\n" if line else "E\n" for line in lines(text))


def tabs_to_spaces(text):
    return text.expandtabs(4)


WRAPPERS = {f.__name__: f for f in (k8s_timestamps, k8s_prefix, k8s_both, cri, docker_json, journald, stern,
                                    compose, ray, torchrun, slurm, ci_timestamps, markdown_quote, code_fence,
                                    unknown_repeated_prefix, pytest_e, tabs_to_spaces)}
