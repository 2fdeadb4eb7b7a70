"""A large log is read only near trigger words: every error found reading every line is found."""

import io

import pytest

from fixture_logs import IDS, LOGS


FINDERS = ["automaton", "str.find"]


def _cases():
    """The project's logs with both finders; each corpus paste with one, taken in turn (both for
    every paste would double the test for little more)."""
    for i, (log, name) in enumerate(zip(LOGS, IDS)):
        for finder in FINDERS if log.parent.name == "logs" else [FINDERS[i % len(FINDERS)]]:
            yield pytest.param(log, finder, id=f"{name}-{finder}")


@pytest.mark.parametrize("log, finder", list(_cases()))
def test_streaming_skips_no_error(log, finder, monkeypatch):
    """The trigger words found by the automaton (the logs extra) or by str.find."""
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
