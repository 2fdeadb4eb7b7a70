"""A container's death as its runtime reports it, where an operator reads it: Kubernetes'
container state (kubectl describe pod's "Reason:  OOMKilled" and "Exit Code:  137", the pod's
YAML or JSON, kubectl get pods' STATUS column), docker's ("Exited (139) 2 minutes ago", docker
inspect's "OOMKilled": true) and docker compose's ("web-1 exited with code 134"). An exit code
above 128 is 128 plus the number of the signal that ended the process."""

from __future__ import annotations

import re
import signal

OOM_KILLED = re.compile(r"""(?:^|[\s"'])(?:[Rr]eason["']?:\s*["']?OOMKilled\b|"OOMKilled":\s*true\b)"""
                        r"|^\S+\s+\d+/\d+\s+OOMKilled\s")                 # kubectl get pods: NAME READY STATUS
# Kubernetes' state says OOMKilled where the OOM killer sent the SIGKILL; docker's and compose's
# exit codes never do, so their 137 says nothing of who sent it
EXIT_CODE = re.compile(r"""^\s*(?P<k8s>Exit Code:\s+|["']?exitCode["']?:\s*)(?P<code>1(?:29|[3-5]\d))(?!\d)"""
                       r"|(?:\bExited \(|\bexited with code )(?P<code2>1(?:29|[3-5]\d))(?!\d)")
HINTS = ("OOMKilled", "xit Code:", "xitCode", "Exited (", "exited with code")


def container_death(line: str) -> tuple[signal.Signals, bool] | None:
    """(the signal, whether the kernel's OOM killer sent it) of a container runtime's report."""
    if not any(hint in line for hint in HINTS):
        return None
    if OOM_KILLED.search(line):
        return signal.SIGKILL, True
    m = EXIT_CODE.search(line)
    if m is None:
        return None
    try:
        sig = signal.Signals(int(m["code"] or m["code2"]) - 128)
    except ValueError:
        return None
    return (sig, False) if m["k8s"] or sig != signal.SIGKILL else None
