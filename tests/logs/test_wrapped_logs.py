"""Metamorphic: a log wrapped by any collector, process manager or paste gives exactly the
findings of the bare log."""

import functools
import io

import pytest

from enrich.logs import findings
from fixture_logs import LOGS
from wrappers import TOLD_BY_REPEATING, WRAPPERS

EACH_PASTE = 3      # wrappers per corpus paste, in turn: every wrapper meets about 3/17 of the corpus


def _cases():
    """The project's logs in every wrapper; each corpus paste in EACH_PASTE of them, taken in turn
    (every paste in all 17 would make this test six times as long, for little more)."""
    names = sorted(WRAPPERS)
    for i, log in enumerate(LOGS):
        turn = [names[(i * EACH_PASTE + j) % len(names)] for j in range(EACH_PASTE)]
        for name in names if log.parent.name == "logs" else turn:
            yield pytest.param(log, name, id=f"{log.parent.name}/{log.name}-{name}")


def summary(text: str):
    """What a finding says, its message compared up to whitespace (a tab may come back as spaces)."""
    return sorted(repr((f.id, f.exception, " ".join(f.message.split()), f.partial, f.root_cause, f.kind, f.count, f.site))
                  for f in findings(io.StringIO(text), all=True))


@functools.cache
def _bare(log):
    """A log's text and the summary of its findings, read once for all the wrappers it meets."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return text, summary(text)


@pytest.mark.parametrize("log, wrapper", list(_cases()))
def test_wrapped_log_gives_the_findings_of_the_bare_log(log, wrapper):
    bare, expected = _bare(log)
    if wrapper in TOLD_BY_REPEATING and len(bare.splitlines()) < 2:
        pytest.skip("a tag no token describes is told by repeating on the next line; this log has one line")
    assert summary(WRAPPERS[wrapper](bare)) == expected
