"""A process's death as the system around it reports it, read by enrich explain: Kubernetes,
docker and docker compose, the kernel's OOM killer and Slurm, in the wordings their outputs
print (none of them runs on this machine); and Python's subprocess, in a real child."""

import io
import subprocess
import sys

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


def test_pythons_subprocess_report_of_a_child_a_signal_ended():
    """A real child that dies of SIGSEGV under subprocess.run(check=True): the parent's
    CalledProcessError says "died with <Signals.SIGSEGV: 11>" (as torch.distributed.launch did for
    a rank); one that SIGKILL ended says nothing of who sent it."""
    child = "import ctypes; ctypes.string_at(0)"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}], check=True)"
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, timeout=60)
    assert "died with <Signals.SIGSEGV: 11>" in done.stderr, done.stderr
    assert ids(done.stderr) == ["process/segfault"]
    [killed] = findings(io.StringIO(
        "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.\n"))
    assert killed.id is None


DMESG = """[Fri Dec  5 10:03:39 2026] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0
[Fri Dec  5 10:03:39 2026] CPU: 17 PID: 4242 Comm: python3 Not tainted 6.8.0-49-generic #49-Ubuntu
[Fri Dec  5 10:03:40 2026] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/kubepods/pod1,task_memcg=/kubepods/pod1/c1,task=python3,pid=4242,uid=0
[Fri Dec  5 10:03:40 2026] Memory cgroup out of memory: Killed process 4242 (python3) total-vm:98765432kB, anon-rss:65536000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:131072kB oom_score_adj:0
[Fri Dec  5 10:03:41 2026] oom_reaper: reaped process 4242 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB
"""


@pytest.mark.parametrize("text", [
    DMESG,
    "[123456.789] Out of memory: Kill process 4242 (python3) score 900 or sacrifice child\n",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=12345.0. Some of the step tasks have been OOM Killed.\n"
    "srun: error: gpu-node-3: task 0: Out Of Memory\n",
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.batch. Some of your processes may have been killed "
    "by the cgroup out-of-memory handler.\n",
    "slurmstepd: error: StepId=7.batch exceeded memory limit (734003200 > 52428800), being killed\n",
])
def test_the_kernels_and_slurms_report_of_an_oom_kill(text):
    assert ids(text) == ["process/oom-killed"]          # one finding, however many lines report the kill


@pytest.mark.parametrize("text", [
    'time="2026-06-23T03:18:20Z" level=warning msg="failed to read oom_kill event" error="open memory.events"\n',
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
    assert ids(filler + DMESG) == ["process/oom-killed"]
