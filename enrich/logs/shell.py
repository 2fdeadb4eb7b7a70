"""The shell's report of a child a signal killed: bash's "Segmentation fault (core dumped)" or
"bash: line 1: 4242 Illegal instruction     python serve.py", dash's bare "Aborted", zsh's
"zsh: illegal hardware instruction" (or, for a job, "[1]  + 4242 abort      python serve.py"),
macOS's "Abort trap: 6", fish's "terminated by signal SIGILL (Illegal instruction)", a JetBrains
IDE's "exit code 134 (interrupted by signal 6:SIGABRT)", Go's "signal: illegal instruction", Open
MPI's "Signal: Bus error (7)" and "exited on signal 6 (Aborted)", macOS's crash report's
"Exception Type:  EXC_BAD_ACCESS (SIGSEGV)", or a crashed thread's frames through libc's abort()
(a crash report's or gdb's backtrace). The process died of that signal: nothing printed before it
said why, or what was printed is the error (a Swift fatalError ends in SIGILL, an uncaught C++
exception in SIGABRT). Failing a report, prose or a title may say it: "a segmentation fault error",
"crashes with SIGSEGV in libamdhip64.so"."""

from __future__ import annotations

import re
import signal

# bash's words are strsignal's; macOS's shell adds the signal's number there, zsh its own words
SIGNALS = {"segmentation fault": signal.SIGSEGV, "illegal instruction": signal.SIGILL,
           "illegal hardware instruction": signal.SIGILL, "bus error": signal.SIGBUS,
           "aborted": signal.SIGABRT, "abort trap": signal.SIGABRT, "abort": signal.SIGABRT,
           "sigsegv": signal.SIGSEGV, "sigill": signal.SIGILL, "sigbus": signal.SIGBUS, "sigabrt": signal.SIGABRT}
# under another locale bash reports in glibc's translation of strsignal and its own of "(core
# dumped)" (libc.mo and bash.mo of zh_CN, zh_TW, ja, ko, de, ru, fr, es, pt_BR): "非法指令 (核心已转储)"
TRANSLATED = {
    signal.SIGSEGV: ("段错误", "程式記憶體區段錯誤", "세그멘테이션 오류", "Speicherzugriffsfehler", "Ошибка сегментирования",
                     "Erreur de segmentation", "Violación de segmento", "Falha de segmentação"),
    signal.SIGILL: ("非法指令", "無效指令", "명령어가 잘못됨", "Ungültiger Maschinenbefehl", "Недопустимая инструкция",
                    "Instruction non permise", "Instrucción ilegal", "Instrução ilegal"),
    signal.SIGBUS: ("总线错误", "匯流排錯誤", "バスエラー", "버스 오류", "Bus-Zugriffsfehler", "Ошибка шины", "Erreur du bus",
                    "Error del bus", "Erro no barramento"),
    signal.SIGABRT: ("已放弃", "中止", "중지됨", "Abgebrochen", "Аварийный останов", "Abandon", "Abortado"),
}
CORE_DUMPED = ("core dumped", "核心已转储", "核心已傾印", "コアダンプ", "코어 덤프됨", "Speicherabzug geschrieben",
               "образ памяти сброшен на диск", "`core' generado", "imagem do núcleo gravada")
SIGNALS |= {words.lower(): sig for sig, translations in TRANSLATED.items() for words in translations}
_TRANSLATED = "|".join(re.escape(words) for translations in TRANSLATED.values() for words in translations)
_CORE = "|".join(map(re.escape, CORE_DUMPED))
REPORT = re.compile(
    r"(?i:(?:^|(?<=[\s`'\"*(:]))(?P<core>segmentation fault|illegal instruction|bus error|aborted|" + _TRANSLATED
    + r") *[(（](?:" + _CORE + r")[)）])"
    # a debugger stopped on the signal: gdb's "Program received signal SIGILL, Illegal instruction.", lldb's
    # "stop reason = signal SIGILL: illegal instruction operand"
    r"|^Program received signal (?P<gdbstop>SIG(?:SEGV|BUS|ILL|ABRT)),|\bstop reason = signal (?P<lldb>SIG(?:SEGV|BUS|ILL|ABRT))\b"
    r"|(?:^|(?<=[\s`'\"*(]))(?P<mac>Segmentation fault|Illegal instruction|Bus error|Abort trap): \d{1,2}\b"
    r"|(?:^|(?<=[\s`'\"*(]))zsh: (?P<zsh>segmentation fault|illegal hardware instruction|bus error|abort)\b"
    r"|(?:^|(?<=^[`'\"]))\[\d+\] +(?:[+-] +)?(?:\d+ +)?"                              # zsh: job, pid (quoted too)
    r"(?P<zjob>segmentation fault|illegal hardware instruction|bus error|abort) {2,}\S"
    # bash: its line, job, pid ("bash: line 1:  4242 ", "bash : ligne 1 :", "bash: 第 1 列：10212 ")
    r"|^\S.*? ?[:,] (?:\S+ )?\d+(?: \S+)? ?[:：] *\d+ +(?P<job>Segmentation fault|Illegal instruction|Bus error|Aborted|"
    + _TRANSLATED + r")(?!\w)"
    r"|^(?P<bare>Segmentation fault|Illegal instruction|Bus error|Aborted)\s*$"                        # dash, sh
    r"|\bterminated by signal (?P<fish>SIG(?:SEGV|BUS|ILL|ABRT))\b"                                    # fish
    r"|\(interrupted by signal \d{1,2}: ?(?P<ide>SIG(?:SEGV|BUS|ILL|ABRT))\)"                          # JetBrains' run window
    # Go's os/exec ("llama runner process has terminated: signal: illegal instruction"), Open MPI's
    # signal report ("[node:4242] Signal: Bus error (7)") and its launcher's summary ("mpirun noticed
    # that process rank 7 with PID 4242 on node gpu03 exited on signal 6 (Aborted).")
    r"|(?:^|(?<=[\s`'\"*(:]))signal: (?P<go>segmentation fault|illegal instruction|bus error|aborted)\b"
    r"|(?:^|(?<=\] ))Signal: (?P<mpi>Segmentation fault|Illegal instruction|Bus error|Aborted) \(\d{1,2}\)"
    r"|\bprocess rank \d+ with PID \d+ on node \S+ exited on signal \d{1,2} "
    r"\((?P<mpirun>Segmentation fault|Illegal instruction|Bus error|Aborted)\)"
    r"|^Exception Type: +EXC_\w+ +\((?P<crash>SIG(?:SEGV|BUS|ILL|ABRT))\)"                          # macOS's crash report
    # the crashed thread's frames: libc's abort() in macOS's crash report (text or .ips JSON) or gdb's backtrace
    r"|^\s*(?:\d+\s+)?libsystem_c\.dylib\s+(?:0x[0-9a-f]+\s+)?(?P<frame>abort)\b"
    r"|\"symbol\"\s*:\s*\"(?P<ips>abort)\""
    r"|^#\d+\s+(?:0x[0-9a-f]+ in )?(?:__GI_)?(?P<gdb>abort) \(")
# what every report holds one of: a line without any is none
HINTS = re.compile("ault|nstruction|rror|bort|EXC_|SIG(?:SEGV|BUS|ILL|ABRT)|" + _TRANSLATED + "|" + _CORE, re.IGNORECASE)


def killed_by(line: str) -> signal.Signals | None:
    """The signal a shell's report in the line names."""
    if not HINTS.search(line):
        return None
    m = REPORT.search(line)
    if m is None:
        return None
    return SIGNALS[next(words for words in m.groups() if words).lower()]


# the signal named in prose: never inside a longer word or name ("mr-segfault", "segfault_error.log"),
# nor among the causes Ray lists for any dead worker ("crashed unexpectedly due to SIGSEGV or other
# unexpected errors"). An illegal instruction told in prose says too little (CUDA has its own
# "illegal instruction"), and so does an abort in words ("it aborts"); the signal's name SIGABRT
# in a title is native code aborting, where the text shows no error that did it (in prose it is
# as often the consequence of an error the writer retells).
TOLD = re.compile(r"(?i:(?<![\w-])(?:segmentation fault|segfault(?:ed|s)?)(?![\w-]))"
                  r"|(?<![\w-])SIG(?P<sig>SEGV|BUS|ABRT)\b(?! or (?:an)?other unexpected error)")
TOLD_SIGNALS = {"SEGV": signal.SIGSEGV, "BUS": signal.SIGBUS, "ABRT": signal.SIGABRT}


def told_of(line: str) -> signal.Signals | None:
    """The signal that prose in the line says the process died of."""
    m = TOLD.search(line)
    if m is None:
        return None
    return TOLD_SIGNALS[m["sig"] or "SEGV"]
