"""enrich explain on logs: inputs (paths, globs, FIFOs, pipes, stdin, gzip), exit status, JSON."""

import gzip
import json
import os
import subprocess
import sys
import threading

from cli_run import KNOWN_LOG, LOGS, assert_one_line_error, run_cli as enrich, clean_log  # noqa: F401 (a fixture)


def test_exit_status_is_1_with_errors_and_0_without(clean_log):
    found = enrich("explain", KNOWN_LOG)
    assert found.returncode == 1 and "[mlx/metal-buffer-too-large]" in found.stdout
    clean = enrich("explain", clean_log)
    assert clean.returncode == 0 and clean.stdout.strip() == f"enrich: no errors found in {clean_log}"


def test_dev_null_is_empty_input_not_an_error():
    out = enrich("explain", "/dev/null")
    assert (out.returncode, out.stdout.strip(), out.stderr) == (0, "enrich: no errors found in /dev/null", "")


def test_missing_file_directory_and_unmatched_glob_are_one_line_errors(tmp_path):
    assert_one_line_error(enrich("explain", KNOWN_LOG, tmp_path / "gone.log"), 2, "no such file")
    assert_one_line_error(enrich("explain", tmp_path), 2, "is a directory")
    assert_one_line_error(enrich("explain", tmp_path / "rank*.log"), 2, "no file matches")
    assert_one_line_error(enrich("explain", "--frobnicate", KNOWN_LOG), 2, "unrecognized arguments")


def test_standard_input_when_nothing_is_given_or_dash():
    text = KNOWN_LOG.read_text()
    for args in ((), ("-",)):
        out = enrich("explain", *args, input=text)
        assert out.returncode == 1 and "in standard input" in out.stdout and "mlx/metal-buffer-too-large" in out.stdout


def test_nothing_given_on_a_terminal_is_a_usage_error():
    import pty
    controller, terminal = pty.openpty()
    try:
        assert_one_line_error(enrich("explain", stdin=terminal), 2, "explain needs a log file")
    finally:
        os.close(controller), os.close(terminal)


def test_several_files_and_globs_quoted_or_expanded():
    expanded = enrich("explain", LOGS / "mlx-01.log", LOGS / "mlx-02.log")
    quoted = enrich("explain", LOGS / "mlx-0[12].log")
    assert expanded.returncode == quoted.returncode == 1
    assert expanded.stdout == quoted.stdout
    assert expanded.stdout.count("distinct error") == 2 and "in " + str(LOGS / "mlx-01.log") in expanded.stdout


def test_gzip_is_read_transparently_and_a_broken_one_is_an_error(tmp_path):
    packed = tmp_path / "server.log.gz"
    packed.write_bytes(gzip.compress(KNOWN_LOG.read_bytes()))
    plain = json.loads(enrich("explain", "--json", KNOWN_LOG).stdout)["findings"]
    unpacked = json.loads(enrich("explain", "--json", packed).stdout)["findings"]
    assert [dict(f, source=None) for f in unpacked] == [dict(f, source=None) for f in plain]
    piped = enrich("explain", "--jsonl", "-", input=None, stdin=open(packed, "rb"))
    assert json.loads(piped.stdout.splitlines()[0])["id"] == "mlx/metal-buffer-too-large"
    broken = tmp_path / "broken.log.gz"
    broken.write_bytes(gzip.compress(KNOWN_LOG.read_bytes())[:40])
    assert_one_line_error(enrich("explain", broken), 2, "not a readable gzip stream")


def test_a_fifo_and_process_substitution(tmp_path):
    fifo = tmp_path / "live.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(KNOWN_LOG.read_text()))
    writer.start()
    out = enrich("explain", fifo)
    writer.join()
    assert out.returncode == 1 and "mlx/metal-buffer-too-large" in out.stdout
    substituted = subprocess.run(["bash", "-c", f'"{sys.executable}" -m enrich explain <(cat "{KNOWN_LOG}")'],
                                 capture_output=True, text=True, timeout=120)
    assert substituted.returncode == 1 and "mlx/metal-buffer-too-large" in substituted.stdout, substituted.stderr


def test_json_is_one_versioned_document():
    document = json.loads(enrich("explain", "--json", KNOWN_LOG).stdout)
    assert document["schema"] == 1 and document["source"] == str(KNOWN_LOG)
    [finding] = document["findings"]
    assert finding["id"] == "mlx/metal-buffer-too-large" and finding["source"] == str(KNOWN_LOG)
    assert finding["line"] == 5 and finding["exception"] == "RuntimeError" and finding["fixes"]
    several = json.loads(enrich("explain", "--json", LOGS / "mlx-01.log", KNOWN_LOG).stdout)
    assert several["source"] == [str(LOGS / "mlx-01.log"), str(KNOWN_LOG)]
    assert [f["source"] for f in several["findings"]] == several["source"]


def test_jsonl_is_one_finding_a_line(clean_log):
    lines = enrich("explain", "--jsonl", LOGS / "mlx-01.log", KNOWN_LOG).stdout.splitlines()
    assert [json.loads(line)["source"] for line in lines] == [str(LOGS / "mlx-01.log"), str(KNOWN_LOG)]
    assert enrich("explain", "--jsonl", clean_log).stdout == ""
    assert_one_line_error(enrich("explain", "--json", "--jsonl", KNOWN_LOG), 2, "not allowed with")


def test_progress_on_a_terminal_for_large_inputs(tmp_path):
    import pty
    big = tmp_path / "big.log"
    with open(big, "w") as out:
        line = "INFO 2025-01-01 10:00:00 step done, loss 1.234, throughput 1234 tok/s\n"
        out.write(line * ((33 << 20) // len(line)))
        out.write(KNOWN_LOG.read_text())
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "enrich", "explain", str(big)], stdout=subprocess.PIPE,
                              stderr=terminal, stdin=subprocess.DEVNULL, text=True, timeout=120)
        os.set_blocking(controller, False)
        shown = os.read(controller, 1 << 16).decode()
    finally:
        os.close(controller), os.close(terminal)
    assert done.returncode == 1 and "mlx/metal-buffer-too-large" in done.stdout
    assert f"enrich: reading {big}" in shown and "MiB)" in shown
    quiet = enrich("explain", big)       # stderr not a terminal: no progress
    assert quiet.stderr == ""


def test_a_message_quoted_in_prose_is_shown_as_a_quote():
    issue = "# vLLM dies: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`\n"
    shown = enrich("explain", "-", input=issue)
    assert shown.returncode == 1
    assert "line 1: quoted in prose: No available memory for the cache blocks\n" in shown.stdout
    assert "[vllm/no-kv-cache-memory]" in shown.stdout


def test_a_wrapper_alone_says_its_cause_is_not_shown_and_one_beside_its_cause_points_at_it():
    alone = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    shown = enrich("explain", "-", input=alone).stdout
    assert "[vllm/engine-core-init-failed]" in shown
    assert "(wraps the real error, which the text does not show or no entry explains)" in shown
    assert "follows from" not in shown
    beside = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
              "when initializing the engine.\n" + alone)
    both = enrich("explain", "--all", "-", input=beside).stdout
    assert "[vllm/no-kv-cache-memory]" in both and "(follows from error 1, the root cause)" in both
    assert "wraps the real error" not in both
