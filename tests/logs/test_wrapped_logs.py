"""Metamorphic: a log wrapped by any collector, process manager or paste gives exactly the
findings of the bare log."""

import io
from pathlib import Path

import pytest

from enrich.logs import findings
from wrappers import WRAPPERS

FIXTURES = Path(__file__).parents[1] / "fixtures"
LOGS = sorted((FIXTURES / "logs").glob("*.log")) + sorted((FIXTURES / "corpus").glob("*/*.log"))
EACH_PASTE = 5      # wrappers per corpus paste, in turn: every wrapper meets about 5/17 of the corpus


def _cases():
    """The project's logs in every wrapper; each corpus paste in EACH_PASTE of them, taken in turn
    (3,000 pastes in 17 wrappers each would double CI's time for little more)."""
    names = sorted(WRAPPERS)
    for i, log in enumerate(LOGS):
        turn = [names[(i * EACH_PASTE + j) % len(names)] for j in range(EACH_PASTE)]
        for name in names if log.parent.name == "logs" else turn:
            yield pytest.param(log, name, id=f"{log.parent.name}/{log.name}-{name}")


def summary(text: str):
    """What a finding says, its message compared up to whitespace (a tab may come back as spaces)."""
    return sorted(repr((f.id, f.exception, " ".join(f.message.split()), f.partial, f.root_cause, f.kind, f.count, f.site))
                  for f in findings(io.StringIO(text), all=True))


@pytest.mark.parametrize("log, wrapper", list(_cases()))
def test_wrapped_log_gives_the_findings_of_the_bare_log(log, wrapper):
    bare = log.read_text(encoding="utf-8", errors="replace")
    if wrapper == "unknown_repeated_prefix" and len(bare.splitlines()) < 2:
        pytest.skip("a tag no token describes is told by repeating on the next line; this log has one line")
    assert summary(WRAPPERS[wrapper](bare)) == summary(bare)


@pytest.mark.parametrize("finder", ["automaton", "str.find"])
@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name}/{p.name}" for p in LOGS])
def test_streaming_skips_no_error(log, finder, monkeypatch):
    """A large log is read only near trigger words: every error found reading every line is found,
    with the trigger words found by the automaton (the logs extra) or by str.find."""
    from enrich.catalog import get_catalog
    from enrich.logs import stream
    from enrich.logs.findings import group
    from enrich.logs.reader import read_lines
    from enrich.logs.stream import scan

    if finder == "automaton":
        assert stream._automaton() is not None, "the test extra installs ahocorasick-rs"
    else:
        monkeypatch.setattr(stream, "_automaton", lambda: None)

    text = log.read_text(encoding="utf-8", errors="replace")
    catalog = get_catalog()
    every_line = group(read_lines(text.splitlines())[0], catalog, all=True)
    streamed = group(scan(io.StringIO(text)), catalog, all=True)
    assert [(f.id, f.exception, f.message, f.root_cause) for f in streamed] == \
        [(f.id, f.exception, f.message, f.root_cause) for f in every_line]
