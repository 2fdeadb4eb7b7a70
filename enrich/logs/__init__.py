"""Errors in log text.

peel, paste   the wrappers collectors and pastes put around lines, peeled; paste damage undone
records       a JSON log record's message and traceback
reader        tracebacks, error lines and notes out of the peeled lines, per process
native        failures native code prints (C++ aborts, c10d, NCCL, Metal, assert())
shell         a shell's report of a child a signal killed ("Segmentation fault (core dumped)")
deaths        the system's report of a death (Kubernetes' OOMKilled, the kernel's OOM killer, Slurm)
stream        a large log read in blocks, only near trigger words
identify, cut the catalog entry of what was read, also from a cut message or from frames
mentions      catalog messages quoted anywhere in a paste (titles, prose, backticks)
engines       which serving engine a paste shows (the other engine's copied words are not its errors)
in_text       an entry's words that are its error only in a text showing its program (catalog in_text)
findings      one finding per root cause; report shows them
carried       a traceback carried as text (in a live exception's message, in a log record)
"""

from enrich.logs.findings import Finding, findings
from enrich.logs.report import render_text

__all__ = ["Finding", "findings", "render_text"]
