"""A container's death as Kubernetes, docker and docker compose report it, read by enrich
explain: the wordings of runtimes this machine lacks, as their outputs print them."""

import io

import pytest

from enrich.logs import findings

DESCRIBE = """Name:             vllm-7d9f8-abcde
Namespace:        inference
Containers:
  vllm:
    Image:          vllm/vllm-openai:v0.11.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       {reason}
      Exit Code:    {code}
      Started:      Fri, 05 Dec 2026 10:01:02 +0000
      Finished:     Fri, 05 Dec 2026 10:03:40 +0000
    Ready:          False
    Restart Count:  4
"""


def ids(text: str) -> list:
    return [f.id for f in findings(io.StringIO(text))]


@pytest.mark.parametrize("reason, code, entry", [
    ("OOMKilled", 137, "process/oom-killed"),
    ("Error", 137, "process/killed"),              # SIGKILL, and Kubernetes says the OOM killer did not send it
    ("Error", 139, "process/segfault"),
    ("Error", 134, "process/native-abort"),
    ("Error", 135, "process/bus-error"),
    ("Error", 132, "process/illegal-instruction"),
    ("Error", 1, None),
    ("Completed", 0, None),
])
def test_kubectl_describe_pods_last_state(reason, code, entry):
    found = ids(DESCRIBE.format(reason=reason, code=code))
    assert found == ([entry] if entry else [])


@pytest.mark.parametrize("text, entry", [
    ("NAME                READY   STATUS      RESTARTS      AGE\n"
     "vllm-7d9f8-abcde    0/1     OOMKilled   4 (30s ago)   10m\n", "process/oom-killed"),
    ("    lastState:\n      terminated:\n        exitCode: 137\n        reason: OOMKilled\n", "process/oom-killed"),
    ('"lastState": {"terminated": {"exitCode": 139, "reason": "Error"}}\n', None),   # one line: no field starts it
    ('        "State": {\n            "Status": "exited",\n            "OOMKilled": true,\n            "ExitCode": 137,\n',
     "process/oom-killed"),                                                          # docker inspect
    ("b1946ac92492   vllm/vllm-openai:v0.11.0   \"python3 -m vllm.ent…\"   3 minutes ago   Exited (134) 2 minutes ago   vllm\n",
     "process/native-abort"),                                                        # docker ps -a
    ("vllm-1  | INFO:     Started server process [1]\nvllm-1 exited with code 139\n", "process/segfault"),   # compose
])
def test_other_runtimes_reports(text, entry):
    assert ids(text) == ([entry] if entry else [])


@pytest.mark.parametrize("text", [
    "vllm-1 exited with code 137\n",                 # compose and docker never say whether the OOM killer sent it
    "b1946ac92492   vllm/vllm-openai   \"python3\"   3 minutes ago   Exited (137) 2 minutes ago   vllm\n",
    "Docker reports `OOMKilled=false`, so this does not look like a container memory OOM.\n",
    "the pod was OOMKilled twice last week, raising the limit fixed it\n",
    "# exit code 137 (SIGKILL) / 143 (SIGTERM)\n",
    "vllm-1 exited with code 0\n",
])
def test_words_that_say_no_runtimes_report_of_a_signal(text):
    assert ids(text) == []


def test_an_error_printed_before_the_report_is_the_one_to_explain():
    text = ("vllm-1  | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
            "capacity of 79.19 GiB of which 1.06 GiB is free.\nvllm-1 exited with code 139\n")
    assert ids(text) == ["torch/cuda-oom"]


def test_a_report_at_the_end_of_a_large_log():
    """Past the size read whole, only lines near trigger words are read: the reports are among them."""
    filler = "".join(f"INFO 12-05 10:{i // 60 % 60:02d}:{i % 60:02d} [loader.py:88] loading shard {i}\n" for i in range(12000))
    assert len(filler) > 1 << 19
    assert ids(filler + "vllm-1 exited with code 139\n") == ["process/segfault"]
    assert ids(filler + DESCRIBE.format(reason="OOMKilled", code=137)) == ["process/oom-killed"]
