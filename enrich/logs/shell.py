"""The shell's report of a child a signal killed: bash's "Segmentation fault (core dumped)" or
"bash: line 1: 4242 Illegal instruction     python serve.py", dash's bare "Aborted", zsh's
"zsh: illegal hardware instruction" (or, for a job, "[1]  + 4242 abort      python serve.py"),
macOS's "Abort trap: 6", its crash report's "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)", or a
crashed thread's frames through libc's abort() (a crash report's or gdb's backtrace). The
process died of that signal: nothing printed before it said why, or what was printed is the error
(a Swift fatalError ends in SIGILL, an uncaught C++ exception in SIGABRT). Failing a report, prose
or a title may say it: "a segmentation fault error", "crashes with SIGSEGV in libamdhip64.so"."""

from __future__ import annotations

import re
import signal

# bash's words are strsignal's; macOS's shell adds the signal's number there, zsh its own words
SIGNALS = {"segmentation fault": signal.SIGSEGV, "illegal instruction": signal.SIGILL,
           "illegal hardware instruction": signal.SIGILL, "bus error": signal.SIGBUS,
           "aborted": signal.SIGABRT, "abort trap": signal.SIGABRT, "abort": signal.SIGABRT,
           "sigsegv": signal.SIGSEGV, "sigill": signal.SIGILL, "sigbus": signal.SIGBUS, "sigabrt": signal.SIGABRT}
REPORT = re.compile(
    r"(?i:(?:^|(?<=[\s`'\"*(:]))(?P<core>segmentation fault|illegal instruction|bus error|aborted) +\(core dumped\))"
    r"|(?:^|(?<=[\s`'\"*(]))(?P<mac>Segmentation fault|Illegal instruction|Bus error|Abort trap): \d{1,2}\b"
    r"|(?:^|(?<=[\s`'\"*(]))zsh: (?P<zsh>segmentation fault|illegal hardware instruction|bus error|abort)\b"
    r"|^\[\d+\] +(?:[+-] +)?(?:\d+ +)?"                                                   # zsh: job, pid
    r"(?P<zjob>segmentation fault|illegal hardware instruction|bus error|abort) {2,}\S"
    r"|^\S.*: line \d+: +\d+ +(?P<job>Segmentation fault|Illegal instruction|Bus error|Aborted)\b"   # bash: job, pid
    r"|^(?P<bare>Segmentation fault|Illegal instruction|Bus error|Aborted)\s*$"                        # dash, sh
    r"|^Exception Type: +EXC_\w+ +\((?P<crash>SIG(?:SEGV|BUS|ILL|ABRT))\)"                          # macOS's crash report
    # the crashed thread's frames: libc's abort() in macOS's crash report (text or .ips JSON) or gdb's backtrace
    r"|^\s*(?:\d+\s+)?libsystem_c\.dylib\s+(?:0x[0-9a-f]+\s+)?(?P<frame>abort)\b"
    r"|\"symbol\"\s*:\s*\"(?P<ips>abort)\""
    r"|^#\d+\s+(?:0x[0-9a-f]+ in )?(?:__GI_)?(?P<gdb>abort) \(")


def killed_by(line: str) -> signal.Signals | None:
    """The signal a shell's report in the line names."""
    if not any(word in line for word in ("ault", "nstruction", "rror", "bort", "EXC_")):
        return None
    m = REPORT.search(line)
    if m is None:
        return None
    return SIGNALS[next(words for words in m.groups() if words).lower()]


# the signal named in prose: never inside a longer word or name ("mr-segfault", "segfault_error.log"),
# nor among the causes Ray lists for any dead worker ("crashed unexpectedly due to SIGSEGV or other
# unexpected errors"). An abort or an illegal instruction told in prose says too little: an
# uncaught exception ends in SIGABRT (its message is the error), CUDA has its own "illegal
# instruction".
TOLD = re.compile(r"(?i:(?<![\w-])(?:segmentation fault|segfault(?:ed|s)?)(?![\w-]))"
                  r"|(?<![\w-])SIG(?P<sig>SEGV|BUS)\b(?! or (?:an)?other unexpected error)")


def told_of(line: str) -> signal.Signals | None:
    """The signal that prose in the line says the process died of."""
    m = TOLD.search(line)
    if m is None:
        return None
    return signal.SIGBUS if m["sig"] == "BUS" else signal.SIGSEGV
