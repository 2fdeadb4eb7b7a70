"""Errors in log text: peel the wrappers (peel), read exceptions and native failures (reader,
native), name their catalog entries (identify), one finding per root cause (findings), and
show them (report). ``carried`` explains a live exception whose message holds another
process's traceback."""

from enrich.logs.findings import Finding, findings
from enrich.logs.report import render_text

__all__ = ["Finding", "findings", "render_text"]
