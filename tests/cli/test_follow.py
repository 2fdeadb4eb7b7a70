"""enrich explain --follow: each finding is printed as soon as it is complete, from a live pipe."""

import json
import select
import subprocess
import sys
import time

from cli_run import KNOWN_LOG, assert_one_line_error, run_cli as enrich, clean_log  # noqa: F401 (a fixture)


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "enrich", "explain", "--follow", *args, "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def finish(process) -> tuple[int, str, str]:
    process.stdin.close()
    rest, errors = process.stdout.read(), process.stderr.read()
    return process.wait(timeout=60), rest, errors


def next_line(process, within: float = 20.0) -> str:
    ready, _, _ = select.select([process.stdout], [], [], within)
    assert ready, "nothing printed while the input was still open"
    return process.stdout.readline()


def test_a_finding_is_printed_while_the_pipe_is_still_open():
    process = start("--jsonl")
    try:
        process.stdin.write("INFO starting\n" + KNOWN_LOG.read_text())
        process.stdin.flush()
        began = time.monotonic()
        first = json.loads(next_line(process))
        assert first["id"] == "mlx/metal-buffer-too-large" and first["line"] == 6
        assert time.monotonic() - began < 15
        process.stdin.write("INFO still serving\n" + KNOWN_LOG.read_text())   # the same error again: not reprinted
        process.stdin.write("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                            "ValueError: something else\n\nINFO next\n")
        process.stdin.flush()
        second = json.loads(next_line(process))
        assert second["exception"] == "ValueError" and second["message"] == "something else"
    finally:
        assert finish(process) == (1, "", "")


def test_text_follow_numbers_findings_and_exits_0_on_a_clean_stream(clean_log):
    process = start()
    try:
        process.stdin.write(KNOWN_LOG.read_text())
        process.stdin.flush()
        assert next_line(process).startswith("1) line 5: RuntimeError: [metal::malloc]")
    finally:
        assert finish(process)[0] == 1
    clean = enrich("explain", "--follow", "-", input=clean_log.read_text())
    assert (clean.returncode, clean.stdout) == (0, "")


def test_follow_needs_one_input_and_jsonl_not_json():
    assert_one_line_error(enrich("explain", "--follow", "--json", KNOWN_LOG), 2, "use --jsonl")
    assert_one_line_error(enrich("explain", "--follow", KNOWN_LOG, KNOWN_LOG), 2, "--follow reads one input")
