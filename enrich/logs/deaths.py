"""A process's death as the system around it reports it, where an operator reads it:
- a container runtime: Kubernetes' container state (kubectl describe pod's "Reason:  OOMKilled"
  and "Exit Code:  137", the pod's YAML, kubectl get pods' STATUS column), docker's ("Exited (139)
  2 minutes ago", docker inspect's "OOMKilled": true), docker compose's ("web-1 exited with code
  134"); an exit code above 128 is 128 plus the number of the signal that ended the process;
- the kernel's OOM killer in dmesg or the journal (mm/oom_kill.c: "Memory cgroup out of memory:
  Killed process 4242 (python3) total-vm:...", "python3 invoked oom-killer: gfp_mask=...",
  "oom-kill:constraint=...", "oom_reaper: reaped process 4242"; older kernels "Out of memory:
  Kill process 4242 (python3) score 900 or sacrifice child");
- Slurm ("slurmstepd: error: Detected 1 oom_kill event in StepId=12345.0. Some of the step tasks
  have been OOM Killed.", earlier "Detected 1 oom-kill event(s) in StepId=7.batch. Some of your
  processes may have been killed by the cgroup out-of-memory handler."; srun's "srun: error:
  node-3: task 0: Out Of Memory"; its accounting's "StepId=7.batch exceeded memory limit
  (734003200 > 52428800), being killed");
- Python's subprocess, for a child a signal ended ("Command '[...]' died with <Signals.SIGSEGV:
  11>.", torch.distributed.launch's report of a rank)."""

from __future__ import annotations

import re
import signal

OOM_KILLED = re.compile(r"""(?:^|[\s"'])(?:[Rr]eason["']?:\s*["']?OOMKilled\b|"OOMKilled":\s*true\b)"""
                        r"|^\S+\s+\d+/\d+\s+OOMKilled\s"                 # kubectl get pods: NAME READY STATUS
                        r"|\b(?:Out of memory|[Mm]emory cgroup out of memory): Kill(?:ed)? process \d+ \("
                        r"|\binvoked oom-killer: gfp_mask=|\boom-kill:constraint=|\boom_reaper: reaped process \d+"
                        r"|\bDetected \d+ oom[-_]kill events?\b|\btasks? [\d,-]+: Out Of Memory\b"
                        r"|\bexceeded memory limit \(\d+ > \d+\), being killed")
# Kubernetes' state says OOMKilled where the OOM killer sent the SIGKILL; docker's and compose's
# exit codes never do, so their 137 says nothing of who sent it
EXIT_CODE = re.compile(r"""^\s*(?P<k8s>Exit Code:\s+|["']?exitCode["']?:\s*)(?P<code>1(?:29|[3-5]\d))(?!\d)"""
                       r"|(?:\bExited \(|\bexited with code )(?P<code2>1(?:29|[3-5]\d))(?!\d)")
# Python's subprocess reports a child a signal ended ("Command '[...]' died with <Signals.SIGSEGV: 11>.")
SUBPROCESS = re.compile(r"\bdied with <Signals\.SIG[A-Z0-9]+: (?P<code>\d{1,2})>")
HINTS = ("OOMKilled", "xit Code:", "xitCode", "Exited (", "exited with code", "of memory: Kill", "oom-kill",
         "oom_kill", "oom_reaper", "Out Of Memory", "memory limit (", "died with <Signals.")


def reported_death(line: str) -> tuple[signal.Signals, bool] | None:
    """(the signal, whether the kernel's OOM killer sent it) of a report of a process's death."""
    if not any(hint in line for hint in HINTS):
        return None
    if OOM_KILLED.search(line):
        return signal.SIGKILL, True
    m = EXIT_CODE.search(line)
    told = SUBPROCESS.search(line) if m is None else None
    if m is None and told is None:
        return None
    number = int(told["code"]) if told else int(m["code"] or m["code2"]) - 128     # exit codes are 128 + N
    try:
        sig = signal.Signals(number)
    except ValueError:
        return None
    return (sig, False) if (m and m["k8s"]) or sig != signal.SIGKILL else None
