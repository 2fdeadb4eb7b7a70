"""enrich explain on the output of real failing processes, recorded on an NVIDIA H200
(tests/gpu/failing_processes.py; machine and scripts in tests/fixtures/processes/labels.json):
each recording is explained by the entry written down before it was first recorded, and by
nothing else."""

import json
from pathlib import Path

import pytest

from enrich.logs import findings

PROCESSES = Path(__file__).parents[1] / "fixtures" / "processes"
LABELS = json.loads((PROCESSES / "labels.json").read_text(encoding="utf-8"))


def roots(name: str):
    with open(PROCESSES / name, encoding="utf-8", errors="replace") as stream:
        return findings(stream)


@pytest.mark.parametrize("log", LABELS["logs"], ids=[log["file"] for log in LABELS["logs"]])
def test_a_real_failing_process_is_explained_by_its_entry(log):
    found = roots(log["file"])
    assert sorted({f.id for f in found if f.id}) == sorted(log["expect"])
    # one finding per error, even where two ranks wrote one traceback in step (a piece cut off says nothing)
    assert len(found) == len(log["expect"]), [(f.exception, f.message[:80]) for f in found]


def test_every_recording_is_labelled_and_every_label_recorded():
    recorded = {p.name for p in PROCESSES.glob("*.log")}
    assert recorded == {log["file"] for log in LABELS["logs"]}
    assert set(LABELS["scripts"]) == {Path(name).stem for name in recorded}
