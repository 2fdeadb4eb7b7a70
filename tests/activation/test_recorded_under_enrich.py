"""The real failing processes of tests/gpu/failing_processes.py, run under ``enrich run`` on an
NVIDIA H100 (tests/fixtures/processes/enriched.json): each live process printed the note of the
entry written down before the scenario was first recorded, with its own values, in the
traceback it died with (under torchrun, in the rank's prefixed lines)."""

import json
import re
from pathlib import Path

import pytest

PROCESSES = Path(__file__).parents[1] / "fixtures" / "processes"
RECORDED = json.loads((PROCESSES / "enriched.json").read_text(encoding="utf-8"))
LABELS = json.loads((PROCESSES / "labels.json").read_text(encoding="utf-8"))
# ptxas compiles this 512x512 dot for about four minutes on that machine, with or without enrich
# (a plain run took 228 s), past the recorder's 180 s limit
TOO_SLOW = {"triton-shared-memory"}


# a launcher's summary after the rank's own note (torchrun's ChildFailedError) points at it
WRAPPERS = {"torch/elastic-child-failed"}


def notes(output: str) -> list[str]:
    """The entries whose notes the output holds: "[torch/cuda-oom] GPU 0 could not give ...",
    also after a rank's prefix "[rank0]: "."""
    return re.findall(r"^(?:\[rank\d+\]: )?\[([a-z0-9-]+/[a-z0-9-]+)\] \S", output, re.M)


@pytest.mark.parametrize("record", RECORDED["records"], ids=[r["name"] for r in RECORDED["records"]])
def test_the_live_process_printed_its_entrys_note(record):
    if record["name"] in TOO_SLOW:
        assert record["exit_status"] is None and record["output"].endswith("<timed out>\n")
        return
    assert record["exit_status"] not in (None, 0)
    found = notes(record["output"])
    assert set(record["expect"]) <= set(found), record["output"][-1500:]
    assert set(found) - WRAPPERS <= set(record["expect"]), found   # no other entry's note but a wrapper's
    lines = re.findall(r"^(?:\[rank\d+\]: )?\[[a-z0-9-]+/[a-z0-9-]+\] .*$", record["output"], re.M)
    assert not any(re.search(r"\{\w+\}", line) for line in lines), lines    # every value filled in


def test_every_scenario_was_run_under_enrich():
    assert {r["name"] for r in RECORDED["records"]} == set(LABELS["scripts"])


def test_no_live_process_ended_with_the_generic_line():
    """Under torchrun the agent's ChildFailedError is the last thing printed: it gets its entry's
    note, naming the rank that failed, not "[enrich: not in the catalog] ChildFailedError ..."."""
    for record in RECORDED["records"]:
        assert "[enrich: not in the catalog]" not in record["output"], record["name"]
    torchrun = [r for r in RECORDED["records"] if "raise ChildFailedError(" in r["output"]]
    exited = [r for r in torchrun if re.search(r"^  exitcode  : 1 ", r["output"], re.M)]
    assert len(exited) >= 4
    for record in exited:
        assert notes(record["output"])[-1] == "torch/elastic-child-failed", record["name"]
