"""The shell's report of a child a signal killed, read by enrich explain: real bash and dash
children killed by real signals, and the wordings of shells and launchers this machine lacks (zsh,
fish, macOS, a JetBrains IDE's run window, Go's os/exec, Open MPI)."""

import io
import os
import shutil
import signal
import subprocess
import sys

import pytest

from enrich.logs import findings

ENTRIES = {signal.SIGSEGV: "process/segfault", signal.SIGILL: "process/illegal-instruction",
           signal.SIGBUS: "process/bus-error", signal.SIGABRT: "process/native-abort"}


def ids(text: str) -> list:
    return [f.id for f in findings(io.StringIO(text))]


def shell_output(shell: str, sig: signal.Signals) -> str:
    """What the shell writes when its child dies of ``sig`` (a command after it, so the shell
    waits for the child instead of exec'ing it)."""
    child = f"{sys.executable} -c 'import os, signal; os.kill(os.getpid(), signal.{sig.name})'"
    done = subprocess.run([shell, "-c", f"{child}; true"], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("sig", list(ENTRIES), ids=lambda s: s.name)
def test_a_real_shells_report_of_a_signal_names_the_signals_entry(shell, sig):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    output = shell_output(shell, sig)
    assert output.strip(), "the shell reported nothing"
    assert ids(output) == [ENTRIES[sig]], output


@pytest.mark.parametrize("language", ["zh_CN", "zh_TW", "ja", "ko", "de", "ru", "fr", "es", "pt_BR"])
@pytest.mark.parametrize("sig", list(ENTRIES), ids=lambda s: s.name)
def test_a_real_bash_in_another_language(language, sig):
    """bash under LANGUAGE=<language> reports in glibc's and its own translations ("bash: 第 1 行：
    8770 非法指令 ..."), where this machine has them."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    child = f"{sys.executable} -c 'import os, signal; os.kill(os.getpid(), signal.{sig.name})'"
    env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "LANGUAGE": language}
    done = subprocess.run(["bash", "-c", f"{child}; true"], capture_output=True, text=True, timeout=60, env=env)
    output = done.stdout + done.stderr
    if ": line 1:" in output:
        pytest.skip(f"bash has no {language} translation here")
    assert ids(output) == [ENTRIES[sig]], output


@pytest.mark.parametrize("line, entry", [
    ("Illegal instruction (core dumped)", "process/illegal-instruction"),
    ("运行到 204 行总是报 非法指令 (核心已转储)", "process/illegal-instruction"),
    ("段错误（核心已转储）", "process/segfault"),
    ("Speicherzugriffsfehler (Speicherabzug geschrieben)", "process/segfault"),
    ("Segmentation fault (コアダンプ)", "process/segfault"),
    ("Program received signal SIGILL, Illegal instruction.", "process/illegal-instruction"),
    ("* thread #1, queue = 'com.apple.main-thread', stop reason = signal SIGILL: illegal instruction operand",
     "process/illegal-instruction"),
    ("segmentation fault (core dumped) when I import vllm", "process/segfault"),
    ("zsh: illegal hardware instruction  python -c 'import mlx.core'", "process/illegal-instruction"),
    ("zsh: segmentation fault  python serve.py", "process/segfault"),
    ("`[1]    96405 illegal hardware instruction  ./llamafile`", "process/illegal-instruction"),   # markdown's quote
    ("Abort trap: 6", "process/native-abort"),
    ("Bus error: 10", "process/bus-error"),
    ("./run.sh: line 3:  4242 Bus error               (core dumped) python x.py", "process/bus-error"),
    ("fish: Job 1, 'python serve.py' terminated by signal SIGILL (Illegal instruction)", "process/illegal-instruction"),
    ("fish: Job 1, 'python serve.py' terminated by signal SIGABRT (Abort)", "process/native-abort"),
    ("Process finished with exit code 134 (interrupted by signal 6:SIGABRT)", "process/native-abort"),
    ("Process finished with exit code 132 (interrupted by signal 4: SIGILL)", "process/illegal-instruction"),
    ("Error: llama runner process has terminated: signal: illegal instruction", "process/illegal-instruction"),
    ("[gpu-node-3:04242] Signal: Bus error (7)", "process/bus-error"),
    ("mpirun noticed that process rank 3 with PID 4242 on node gpu-node-3 exited on signal 11 (Segmentation fault).",
     "process/segfault"),
    ("prterun noticed that process rank 7 with PID 0 on node gpu0304 exited on signal 6 (Aborted).",
     "process/native-abort"),
])
def test_other_shells_wordings(line, entry):
    assert ids(">>> model = load(path)\n" + line + "\n") == [entry]


def test_the_report_adds_nothing_to_an_error_printed_before_it():
    """An uncaught C++ exception ends in SIGABRT, Swift's fatalError in SIGILL: the error printed
    first is the one to explain, known or not."""
    abort = "terminate called after throwing an instance of 'std::runtime_error'\n  what():  tile scheduler ran out\n"
    assert ids(abort + "Aborted (core dumped)\n") == [None]
    swift = 'Fatal error: MetalExecutionError: Error Domain=MTLCommandBufferErrorDomain Code=8\nIllegal instruction: 4\n'
    assert "process/illegal-instruction" not in ids(swift)
    metal = ("zsh: abort      mlx_lm.generate --model m\n"
             "libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
             "execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n")
    assert ids(metal) == ["mlx/metal-command-buffer-oom"]
    crash_report = ("libc++abi.dylib: terminating with uncaught exception of type std::__1::system_error: "
                    "mutex lock failed: Invalid argument\n\nProcess:               vkcube [2290]\n"
                    "Exception Type:        EXC_CRASH (SIGABRT)\n")
    assert ids(crash_report) == [None]


def test_a_real_failed_assert_is_the_error_its_abort_reports():
    """glibc's assert() prints "<program>: <file>:<line>: <function>: Assertion `<expr>' failed." and
    aborts (Triton's MLIR passes, C extensions): that line is the error, not the shell's report."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    child = (f"{sys.executable} -c \"import ctypes; ctypes.CDLL(None).__assert_fail("
             f"b'srcMmaLayout && dstMmaLayout', b'/project/lib/Analysis/Allocation.cpp', 42, b'getCvtOrder')\"")
    done = subprocess.run(["bash", "-c", f"{child}; true"], capture_output=True, text=True, timeout=60)
    output = done.stdout + done.stderr
    assert "Assertion `srcMmaLayout && dstMmaLayout' failed." in output and "Aborted" in output, output
    [finding] = findings(io.StringIO(output))
    assert finding.id is None and finding.exception == "Assertion"
    assert finding.message.startswith("/project/lib/Analysis/Allocation.cpp:42: getCvtOrder: Assertion")


def test_a_real_abort_that_shows_no_exception_is_the_abort():
    """std::terminate with no exception in flight prints only "terminate called without an active
    exception": nothing says why, so the abort is the finding (the shell's report adds nothing)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    child = f"{sys.executable} -c 'import ctypes; ctypes.CDLL(\"libstdc++.so.6\")._ZSt9terminatev()'"
    done = subprocess.run(["bash", "-c", f"{child}; true"], capture_output=True, text=True, timeout=60)
    output = done.stdout + done.stderr
    assert "terminate called without an active exception" in output and "Aborted" in output, output
    [finding] = findings(io.StringIO(output))
    assert finding.id == "process/native-abort" and finding.partial
    assert finding.message == "terminate called without an active exception"


@pytest.mark.parametrize("cut", [
    "libc++abi: terminating due to uncaught exception of type std::runtime_erro",
    "libc++abi: terminating due to",
    "terminate called after throwing an instance of 'c10::Error'",
])
def test_an_abort_cut_before_its_exceptions_text(cut):
    """A paste cut inside the abort's first line, or before its what() line: alone, the abort is
    the finding; after an error printed before it, that error is what aborted."""
    assert ids(f"$ python generate.py\n{cut}\n") == ["process/native-abort"]
    before = f"RuntimeError: CUDA error: invalid resource handle\n{cut}\n"
    assert [(f.line, f.id, f.root_cause) for f in findings(io.StringIO(before), all=True)] == [
        (1, None, True), (2, None, False)]


def test_an_abort_without_an_exception_waits_for_no_what_line():
    """Only libstdc++'s "terminate called after throwing" is followed by a what() line: one that
    follows a terminate with no exception in flight belongs to the next abort, whose error is the
    one to explain."""
    text = ("terminate called without an active exception\n"
            "terminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: an illegal memory access was encountered\n")
    assert [(f.line, f.exception, f.id, f.root_cause) for f in findings(io.StringIO(text), all=True)] == [
        (1, "", None, False), (2, "c10::Error", "torch/cuda-illegal-address", True)]


@pytest.mark.parametrize("after", ["", "zsh: abort      python serve.py\n"])
def test_an_aborts_line_that_promised_its_text_on_the_next_line(after):
    """libc++abi's "...of type std::runtime_error:" at the end of the input, or before the shell's
    report: the text never came, so the abort is the finding."""
    text = "libc++abi: terminating due to uncaught exception of type std::runtime_error:\n" + after
    [finding] = findings(io.StringIO(text))
    assert finding.id == "process/native-abort" and finding.exception == "std::runtime_error"


def test_an_aborts_exception_text_on_the_next_line():
    """libc++abi's "...of type std::runtime_error:" hard-wrapped before the message, and
    Objective-C's uncaught exception with its reason: the text shown is the error, not the abort."""
    wrapped = ("libc++abi: terminating due to uncaught exception of type std::runtime_error:\n"
               "[METAL] Command buffer execution failed: Insufficient Memory "
               "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n")
    assert ids(wrapped) == ["mlx/metal-command-buffer-oom"]
    objc = ("*** Terminating app due to uncaught exception 'NSRangeException', reason: "
            "'*** -[__NSArray0 objectAtIndex:]: index 0 beyond bounds for empty array'\n"
            "libc++abi: terminating due to uncaught exception of type NSException\n"
            "zsh: abort      python -c 'import mlx.core'\n")
    [finding] = findings(io.StringIO(objc))
    assert (finding.exception, finding.id) == ("NSRangeException", None)
    assert finding.message == "*** -[__NSArray0 objectAtIndex:]: index 0 beyond bounds for empty array"


@pytest.mark.parametrize("text", ["Aborted!\n", "Segmentation faults are rare here\n", "Killed\n", "中止\n",
                                  "Der Vorgang wurde abgebrochen\n", "Abgebrochen (durch Benutzer)\n",
                                  "2024-01-01 12:00:00 Aborted by user\n",
                                  "INFO 09-27 06:46:46 [engine.py:157] Aborted request cmpl-1\n",
                                  "the request was Aborted\n", "Bus error handling improved in 2.1\n"])
def test_words_that_are_no_report(text):
    assert [i for i in ids(text) if i] == []


@pytest.mark.parametrize("text, entry", [
    ("# [Bug] Segmentation Fault on AMD MI300X\nI am unable to run online benchmarks due to a segmentation fault error.\n",
     "process/segfault"),
    ("The scheduler crashed in `hipLaunchKernel`, producing a Python `SIGSEGV` backtrace in `libamdhip64.so`.\n",
     "process/segfault"),
    ("the workers die with SIGBUS while the shards are memory-mapped from /dev/shm\n", "process/bus-error"),
    ("# [Bug] SIGABRT in mlx::core::gpu::check_error on com.Metal.CompletionQueueDispatch\nAfter two hours it dies.\n",
     "process/native-abort"),
])
def test_prose_that_says_which_signal_the_process_died_of(text, entry):
    [finding] = findings(io.StringIO(text))
    assert finding.id == entry and finding.partial


@pytest.mark.parametrize("text", [
    "The worker crashed unexpectedly due to SIGSEGV or another unexpected error.\n",   # Ray's lists of causes
    "(3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n",
    "mr-segfault · comment\nsee segfault_error.log attached\n",                          # a name, a file
    "RuntimeError: CUDA error: invalid resource handle\n",             # CUDA's own
    "the server dies with an uncaught Metal OOM SIGABRT\n",                               # the exception is the error
    "# Server wedges for hours, then dies with uncaught Metal OOM SIGABRT\n",             # in a title too
    "Swift cannot catch it, so any command-buffer error ends in SIGABRT.\n",             # an abort in prose
    "# [NVIDIA] Fix PTX codegen segfaults on consumer Blackwell (sm_120)\n",             # a change's title
    "This change adds the signal name (e.g., SIGSEGV) to the exit code line.\n",         # and its description
])
def test_prose_that_names_no_signal_the_process_died_of(text):
    assert not any(ids(text))


def test_advice_naming_a_signal_beside_an_error_of_the_texts_own():
    text = ("subprocess.CalledProcessError: Command '['python', '-m', 'torch.distributed.run']' returned non-zero exit status 1.\n"
            "Hi! For NCCL-related multi-GPU errors like SIGSEGV (exit code -11), we recommend NCCL_IB_DISABLE=1.\n")
    assert not any(ids(text))


def test_prose_naming_a_signal_under_a_title_that_names_the_error():
    """The title names the thread's error; a comment on another program's crash is no death of
    this one's."""
    text = ("# IndexError: map::at when calling `_triton.code_gen.add_passes_to_emit_bin`\n\n"
            "While I have you: the blocksparse matmul makes ptxas 11.4 segfault.\n")
    assert not any(ids(text))
    assert ids(text.replace("IndexError: map::at", "map::at")) == ["process/segfault"]
    below = "first line\n" * 5 + text          # a heading further down is no title
    assert ids(below) == ["process/segfault"]


def test_prose_naming_a_signal_adds_nothing_to_an_explained_error():
    text = ("The load segfaults sometimes, and otherwise stops with\n"
            "RuntimeError: CUDA error: out of memory\n")
    assert "process/segfault" not in ids(text)


@pytest.mark.parametrize("report, entry", [
    ("Exception Type:        EXC_BAD_ACCESS (SIGSEGV)\nException Subtype: KERN_INVALID_ADDRESS at 0x10\n", "process/segfault"),
    ("Exception Type:        EXC_CRASH (SIGABRT)\nException Codes:       0x0, 0x0\n", "process/native-abort"),
    ("Exception Type:  EXC_BAD_INSTRUCTION (SIGILL)\n", "process/illegal-instruction"),
])
def test_macos_crash_reports_exception_type(report, entry):
    [finding] = findings(io.StringIO("Process:               Python [4242]\n" + report))
    assert finding.id == entry and not finding.partial


@pytest.mark.parametrize("frames", [
    # macOS's crash report (jundot/omlx#354) and its .ips JSON, then gdb's backtrace on Linux
    "Thread 1 Crashed::  Dispatch queue: com.Metal.CompletionQueueDispatch\n"
    "0   libsystem_kernel.dylib              __pthread_kill + 8\n"
    "1   libsystem_pthread.dylib             pthread_kill + 296\n"
    "2   libsystem_c.dylib                   abort + 124\n"
    "3   libc++abi.dylib                     __abort_message + 132\n",
    '"frames":[{"imageOffset":37988,"symbol":"__pthread_kill","symbolLocation":8,"imageIndex":4},'
    '{"imageOffset":121428,"symbol":"abort","symbolLocation":124,"imageIndex":6}]\n',
    "#0  __pthread_kill_implementation (no_tid=0, signo=6, threadid=140737352) at ./nptl/pthread_kill.c:44\n"
    "#1  0x00007ffff7c969ef in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n"
    "#2  0x00007ffff7c7c4c2 in __GI_abort () at ./stdlib/abort.c:79\n",
])
def test_a_crashed_threads_frames_through_abort(frames):
    """The process died in libc's abort(): an uncaught C++ exception or a failed assertion whose
    own words the text does not show."""
    [finding] = findings(io.StringIO(frames))
    assert finding.id == "process/native-abort"
    uncaught = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command "
                "buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n")
    assert [f.id for f in findings(io.StringIO(uncaught + frames))] == ["mlx/metal-command-buffer-oom"]


def test_zshs_report_of_a_job_a_signal_killed():
    """zsh, macOS's login shell, reports a job by its number, pid and the signal's lower-case name."""
    assert ids("[1]  + 4242 abort      python -m mlx_lm.server --model m\n") == ["process/native-abort"]
    assert ids("[2] segmentation fault  ./serve\n") == ["process/segfault"]
    assert not any(ids("[1] abort the request when the client goes away\n"))


def test_faulthandlers_report_of_an_abort_is_the_abort_unless_an_error_came_first():
    """A real child with faulthandler on that calls abort(): "Fatal Python error: Aborted" and the
    threads' stacks. Alone it is the abort; after an error it shows, that error is the root."""
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", "import os; os.abort()"],
                          capture_output=True, text=True, timeout=60)
    assert done.stderr.startswith("Fatal Python error: Aborted"), done.stderr
    assert ids(done.stderr) == ["process/native-abort"]
    shown = "RuntimeError: CUDA error: an illegal memory access was encountered\n" + done.stderr
    assert ids(shown) == ["torch/cuda-illegal-address"]


def test_faulthandlers_line_after_pytests_progress_letters():
    """pytest writes a test file's progress letters with no newline, so a crash's "Fatal Python
    error" follows them on the same line ("tests/test_moe.py ..FFatal Python error: ..."): a real
    child that writes them to the stream faulthandler uses, then dies of SIGSEGV."""
    child = ("import sys, ctypes; sys.stderr.write('tests/test_moe.py ..F'); sys.stderr.flush(); "
             "ctypes.string_at(0)")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", child], capture_output=True, text=True,
                          timeout=60)
    assert "..FFatal Python error: Segmentation fault" in done.stderr, done.stderr
    assert ids(done.stderr) == ["process/segfault"]
