"""Logs written as one JSON record a line: a JSON logger's record that carries a whole
traceback, and collectors' exports that carry one line each (Loki, journalctl -o json, Cloud
Logging). Each reads as the text it holds."""

import io
import json
import logging
from pathlib import Path

import pytest
import structlog
from logger_fixture import stream_logger  # noqa: F401 - a fixture

from enrich.logs import findings

LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "logs").glob("*.log"))
TS = "2025-01-20T19:10:07.123456789Z"
PER_LINE = {
    "loki_export": lambda line: {"line": line, "timestamp": TS},
    "journalctl_json": lambda line: {"__REALTIME_TIMESTAMP": "1737400207123456", "_PID": "1234",
                                     "SYSLOG_IDENTIFIER": "vllm", "MESSAGE": line},
    "cloud_logging": lambda line: {"textPayload": line, "severity": "ERROR", "timestamp": TS},
}


def summary(text: str):
    return sorted(repr((f.id, f.exception, " ".join(f.message.split()), f.partial, f.root_cause, f.kind, f.count, f.site))
                  for f in findings(io.StringIO(text), all=True))


@pytest.mark.parametrize("export", sorted(PER_LINE))
@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_a_log_exported_as_json_lines_gives_the_findings_of_the_bare_log(log, export):
    bare = log.read_text(encoding="utf-8", errors="replace")
    exported = "".join(json.dumps(PER_LINE[export](line)) + "\n" for line in bare.splitlines())
    assert summary(exported) == summary(bare)


def _failing_load():
    torch = pytest.importorskip("torch")
    torch.nn.Linear(8, 4).load_state_dict(torch.nn.Linear(16, 4).state_dict())


def _one_finding(text: str):
    [finding] = findings(io.StringIO(text))
    assert finding.id == "torch/state-dict-size-mismatch", text
    assert finding.summary.startswith("Linear.weight: the checkpoint has shape [4, 16]")
    assert finding.site == "torch.nn.modules.module:load_state_dict"


def test_a_json_formatters_record_with_exc_info(stream_logger):
    """logging with a JSON formatter, as python-json-logger writes it: the traceback in exc_info."""
    class JsonFormatter(logging.Formatter):
        def format(self, record):
            out = {"asctime": self.formatTime(record), "levelname": record.levelname, "message": record.getMessage()}
            if record.exc_info:
                out["exc_info"] = self.formatException(record.exc_info)
            return json.dumps(out)

    logger, handler, stream = stream_logger
    handler.setFormatter(JsonFormatter())
    try:
        _failing_load()
    except RuntimeError:
        logger.exception("loading the checkpoint failed")
    text = "2025-01-20 plain line before\n" + stream.getvalue()
    assert text.count("\n") == 2 and '"exc_info": "Traceback (most recent call last):\\n' in text
    _one_finding(text)


@pytest.mark.parametrize("tracebacks", ["format_exc_info", "dict_tracebacks"])
def test_structlogs_json_record_with_its_exception(tracebacks):
    stream = io.StringIO()
    logger = structlog.wrap_logger(structlog.PrintLogger(stream), processors=[
        structlog.processors.add_log_level, getattr(structlog.processors, tracebacks),
        structlog.processors.JSONRenderer()])
    try:
        _failing_load()
    except RuntimeError:
        logger.exception("load_failed", model="tiny")
    text = stream.getvalue()
    assert text.count("\n") == 1
    if tracebacks == "format_exc_info":
        _one_finding(text)
    else:                               # frames as data: the type and message are what is left to read
        [finding] = findings(io.StringIO(text))
        assert finding.id == "torch/state-dict-size-mismatch" and finding.exception == "RuntimeError"


def test_json_that_is_no_log_record_stays_as_written():
    config = '{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "num_attention_heads": 32}\n'
    assert findings(io.StringIO(config)) == []


def test_torchelastics_error_file_printed_as_indented_json(tmp_path):
    """A worker decorated with @record writes its error to TORCHELASTIC_ERROR_FILE; torchelastic
    (and people pasting it) print that file as indented JSON, the traceback an escaped string."""
    import subprocess
    import sys
    import textwrap
    pytest.importorskip("torch.distributed.elastic")
    error_file = tmp_path / "error.json"
    script = textwrap.dedent("""
        import torch
        from torch.distributed.elastic.multiprocessing.errors import record

        @record
        def main():
            torch.nn.Linear(8, 4).load_state_dict(torch.nn.Linear(16, 4).state_dict())

        main()
    """)
    subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120,
                   env={"TORCHELASTIC_ERROR_FILE": str(error_file), "ENRICH_DISABLED": "1", "PATH": "/usr/bin:/bin"})
    shown = json.dumps(json.loads(error_file.read_text()), indent=2)
    assert '"py_callstack": "Traceback (most recent call last):\\n  File \\"' in shown
    text = "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:" + shown + "\n"
    _one_finding(text)
    cut = "".join(line[i:i + 160] + "\n" for line in text.splitlines() for i in range(0, max(len(line), 1), 160))
    [finding] = findings(io.StringIO(cut))          # a page or a terminal that cut the long line in pieces
    assert finding.id == "torch/state-dict-size-mismatch"
    ended = cut[:cut.index("raise RuntimeError(")]     # an excerpt that ends inside the string
    [finding] = findings(io.StringIO(ended))
    assert finding.site == "torch.nn.modules.module:load_state_dict" and finding.partial


def test_json_nested_past_the_parsers_depth_is_text_not_a_crash():
    assert findings(io.StringIO('{"a": ' + "[" * 1000 + "]" * 1000 + "}\n")) == []


@pytest.mark.parametrize("record, entry", [
    ({"level": "error", "msg": "request failed",
      "error": "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which "
               "1.06 GiB is free."}, "torch/cuda-oom"),
    ({"message": "Worker crashed", "exception": "RuntimeError: CUDA error: an illegal memory access was encountered"},
     "torch/cuda-illegal-address"),
])
def test_a_records_error_on_one_line_is_read_with_its_message(record, entry):
    assert [f.id for f in findings(io.StringIO(json.dumps(record) + "\n"))] == [entry]


def test_a_json_string_that_never_closes_holds_no_more_lines_than_one_line_is_joined_from():
    """Windows paths look like JSON escapes ("C:\\new"): an open string takes at most as many
    pieces as a line is joined from, then what it held is read and the lines after it as written."""
    from enrich.logs.peel import MAX_PIECES, Peeler

    peeler = Peeler()
    cut = '      "py_callstack": "Traceback (most recent call last):\\n  File \\"C:\\\\srv\\\\app.py\\", line 3, in <module>'
    assert peeler.peel(1, cut) == [] and peeler.pending
    held = [n for n in range(2, 200) if not peeler.peel(n, f"2024-01-01 INFO copying C:\\tmp\\new\\shard{n}.bin")]
    assert held == list(range(2, 2 + MAX_PIECES - 1)) and not peeler.pending
    [line] = peeler.peel(200, "RuntimeError: CUDA error: an illegal memory access was encountered")
    assert line.text.startswith("RuntimeError: CUDA error")


def test_a_traceback_escaped_inside_an_error_bodys_repr():
    """A client re-raises the server's error body as its repr: the server's traceback is in one line,
    its newlines escaped ("{'detail': '...\\nTraceback ...\\n  File \"...'}"), perhaps cut."""
    body = ("CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at "
            "some other API call, so the stacktrace below might be incorrect.\nTraceback (most recent call last):\n"
            '  File "/app/api/v1/endpoints/models.py", line 57, in generate\n'
            "    return m.generate(request.dict())\nRuntimeError: CUDA error: device-side assert triggered\n")
    line = f"Exception: Could not generate text. Error: {{'detail': {body!r}}}\n"
    assert "\\nTraceback (most recent call last):\\n" in line
    assert [f.id for f in findings(io.StringIO(line))] == ["torch/cuda-device-assert"]
    cut = line[:line.index("return m.generate")] + "\n"
    assert [f.id for f in findings(io.StringIO(cut))] == ["torch/cuda-device-assert"]
