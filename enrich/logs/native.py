"""Failures printed by native code, with no Python exception: C++ aborts, c10d's glog lines,
NCCL's WARN lines and return codes, the NVIDIA driver's Xid lines, glibc's and Metal's failed
assertions, and the compiler errors and failed build steps of a kernel built just in time."""

from __future__ import annotations

import re

TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'"
                       # libc++abi's, and its older wording "terminating with uncaught exception ..."
                       r"|terminating (?:due to|with) uncaught exception of type (?P<type2>\w+(?:::\w+)*)(?::\s*(?P<message>.*))?"
                       # libc++abi's with no exception in flight, or its line cut before the type
                       r"|libc\+\+abi(?:\.dylib)?: terminating(?: (?:due to|with)(?: uncaught(?: exception)?)?)?\s*$"
                       r"|terminate called (?:without an active exception|recursively)"
                       # Objective-C's: "*** Terminating app due to uncaught exception 'NSRangeException', reason: '...'"
                       r"|Terminating app due to uncaught exception '(?P<type3>[^']+)',? reason:?(?P<reason>\s*.*)")
# faulthandler's report of SIGABRT (CPython's own, or -X faulthandler): an abort whose cause, if any
# line tells it, was printed before
FAULTHANDLER_ABORT = re.compile(r"^Fatal [Pp]ython error: ?Aborted\.?$")
WHAT = re.compile(r"(?:^|\s)what\(\):\s+(?P<message>.*)$")
NCCL_WARN = re.compile(r"(?:NCCL|\.(?:cc|h|cpp):\d+) WARN (?P<message>.+)$")
# "NCCL INFO init.cc:1350 -> 2": a call returned an error code on its way up
NCCL_RETURN = re.compile(r"NCCL INFO (?P<where>[\w./-]+:\d+) -> (?P<code>[1-9]\d*)\b")
NCCL_CODES = {1: "ncclUnhandledCudaError", 2: "ncclSystemError", 3: "ncclInternalError", 4: "ncclInvalidArgument",
              5: "ncclInvalidUsage", 6: "ncclRemoteError"}
XID = re.compile(r"NVRM: (?P<message>Xid \(.*)$")
# glibc's assert(): "python3: /project/lib/Analysis/Allocation.cpp:42: <function>: Assertion `expr' failed."
# (a CUDA kernel's device assert closes its expression with a backtick and names no program)
ASSERTION = re.compile(r"^[\w.+-]+: (?P<message>[^\s:]*/[^:]+:\d+: .*Assertion `.*' failed\.)\s*$")
METAL = re.compile(r"(?P<message>(?:-\[MTL\w+ [^\]]+\]:\d*: )?failed assertion .*|\[METAL\] .*)$")
# gcc/clang "file:line:col: fatal error: ..." and nvcc "file(line): error: ..." of a source file
COMPILER = re.compile(r"(?P<file>(?:[A-Za-z]:)?[^\s:()]*[/\\][^\s:()]+\.(?:cuh|cu|hpp|hh|h|cc|cpp|cxx|c|inc))"
                      r"(?::\d+(?::\d+)?|\(\d+\)):\s+(?:fatal )?error:\s*(?P<message>.+)$")
# ninja's line for a build step that failed: "FAILED: [code=1] <target>" (the code since ninja 1.12)
NINJA_FAILED = re.compile(r"(?:^|\s)(?P<message>FAILED: (?:\[code=\d+\] )?\S+)")
# torch's hint lines that follow a CUDA error (part of its message, never an error of their own)
HINTS = ("CUDA kernel errors might be asynchronously reported", "For debugging consider passing CUDA_LAUNCH_BLOCKING",
         "Compile with `TORCH_USE_CUDA_DSA`", "Device-side assertions were explicitly omitted",
         "Exception raised from ", "frame #")


def nccl_return(text: str) -> tuple[str, str] | None:
    """(where, message) of an NCCL INFO line that reports a non-zero return code."""
    m = NCCL_RETURN.search(text)
    if m is None:
        return None
    code = int(m["code"])
    return m["where"], f"NCCL call returned {code} ({NCCL_CODES.get(code, 'error')})"


def native_error(text: str) -> tuple[str, str] | None:
    """(type, message) of a native failure line other than a C++ abort."""
    m = NCCL_WARN.search(text)
    if m:
        return "NCCL WARN", m["message"]
    if "NVRM" in text:
        m = XID.search(text)
        if m:
            return "Xid", m["message"]
    if "' failed." in text:
        m = ASSERTION.search(text)
        if m:
            return "Assertion", m["message"]
    if "assertion" in text or "[METAL]" in text:
        m = METAL.search(text)
        if m:
            return "Metal", m["message"]
    return None


def compiler_error(text: str) -> str | None:
    """The diagnostic of a compiler error line, from its source file's path on, or of ninja's
    line for a failed build step."""
    if "FAILED: " in text:
        m = NINJA_FAILED.search(text)
        return m["message"] if m else None
    m = COMPILER.search(text) if " error:" in text else None
    return text[m.start():].strip() if m else None


def is_hint(text: str) -> bool:
    return text.lstrip().startswith(HINTS)
