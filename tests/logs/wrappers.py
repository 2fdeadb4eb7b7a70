"""The wrappers real collectors and pastes put around log lines, as functions of the bare text."""

from __future__ import annotations

import json

TS = "2025-01-20T19:10:07.123456789Z"


def lines(text: str) -> list[str]:
    return text.splitlines()


def prefixed(prefix: str, name: str):
    """A wrapper that puts the same prefix before every line."""
    def wrap(text):
        return "".join(f"{prefix}{line}\n" for line in lines(text))
    wrap.__name__ = name
    return wrap


def cri(text, width=40):
    """kubelet's CRI files; long lines split into P(artial) pieces ended by an F(ull) one."""
    out = []
    for line in lines(text):
        pieces = [line[i:i + width] for i in range(0, len(line), width)] or [""]
        out += [f"{TS} stderr {'P' if i < len(pieces) - 1 else 'F'} {p}\n" for i, p in enumerate(pieces)]
    return "".join(out)


def docker_json(text):
    return "".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": TS}) + "\n" for line in lines(text))


PREFIXED = [prefixed(prefix, name) for name, prefix in (
    ("k8s_timestamps", f"{TS} "),                                       # kubectl logs --timestamps
    ("k8s_prefix", "[pod/vllm-7d9f8-abcde/vllm] "),                      # kubectl logs --prefix
    ("k8s_both", f"[pod/vllm-7d9f8-abcde/vllm] {TS} "),
    ("journald", "Jun 11 01:50:31 gpu-node-7 dockerd[1234]: "),
    ("stern", "\x1b[32mvllm-7d9f8-abcde\x1b[0m \x1b[34mvllm\x1b[0m "),
    ("compose", "sglang-1  | "),
    ("ray", "\x1b[36m(RayWorkerWrapper pid=2417, ip=10.0.0.7)\x1b[0m "),
    ("torchrun", "[rank3]: "),
    ("slurm", "0: "),                                                  # srun --label
    ("ci_timestamps", "2025-01-20T19:10:07.1234567Z "),
    ("unknown_repeated_prefix", "node-a7.cluster-x9 "),                # a tag no token describes
)]


def markdown_quote(text):
    return "".join(f"> {line}\n" if line else ">\n" for line in lines(text))


def code_fence(text):
    return "```\n" + text.rstrip("\n") + "\n```\n"


def pytest_e(text):
    """pytest's failure report: every line of the captured error behind an "E" column."""
    return "".join(f"E       {line.rsplit(chr(13), 1)[-1]}\n" if line else "E\n" for line in lines(text))


def tabs_to_spaces(text):
    return text.expandtabs(4)


WRAPPERS = {f.__name__: f for f in (*PREFIXED, cri, docker_json, markdown_quote, code_fence, pytest_e, tabs_to_spaces)}
# prefixes no token describes (stern's pod and container, a host name): told by repeating on the next line
TOLD_BY_REPEATING = {"stern", "unknown_repeated_prefix"}
