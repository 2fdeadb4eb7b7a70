"""Wordings users' logs show, read from the labelled corpus of public pastes (dev split): the
catalog entry must claim the real message line, not only the wording of the current release."""

from __future__ import annotations

from pathlib import Path

import pytest

from enrich.catalog import get_catalog
from enrich.facts import from_text
from enrich.match import best_match

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"

# (paste, text just before the message on its line, exception class as the paste names it, entry)
CASES = [
    ("flashinfer/002.log", "RuntimeError: ", "RuntimeError", "flashinfer/jit-build-failed"),
    ("flashinfer/008.log", "what():  ", "std::invalid_argument", "flashinfer/no-kernel-config"),
    ("flashinfer/021.log", "what():  ", "flashinfer::Error", "flashinfer/no-kernel-config"),
    ("flashinfer/023.log", "RuntimeError: ", "RuntimeError", "flashinfer/no-kernel-config"),
]


def message_line(paste: str, head: str) -> str:
    for line in (CORPUS / paste).read_text(encoding="utf-8", errors="replace").splitlines():
        if head in line:
            return line.split(head, 1)[1].strip()
    raise AssertionError(f"{paste}: no line with {head!r}")


@pytest.mark.parametrize("paste, head, exception, entry_id", CASES, ids=[c[0] for c in CASES])
def test_entry_claims_the_reported_wording(paste, head, exception, entry_id):
    message = message_line(paste, head)
    match = best_match(from_text(exception, message), get_catalog())
    assert match is not None and match.entry.id == entry_id, (paste, message)
