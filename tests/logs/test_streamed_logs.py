"""A large log is read only near trigger words: every error found reading every line is found."""

import io

import pytest

from fixture_logs import IDS, LOGS


@pytest.mark.parametrize("finder", ["automaton", "str.find"])
@pytest.mark.parametrize("log", LOGS, ids=IDS)
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
