"""Catalog maintenance: reference pages, drafts imported from error records, figures."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from enrich.catalog import Catalog
from enrich.render.page import markdown, page_of


# --- reference pages, one per entry (the way rustc's error index works) ---------------------------

def write_docs(catalog: Catalog, directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    index = ["# enrich catalog", "", "| ID | component | title |", "|---|---|---|"]
    for entry in sorted(catalog.entries.values(), key=lambda e: e.id):
        path = directory / f"{entry.id.replace('/', '--')}.md"
        path.write_text(markdown(page_of(entry)))
        title = f"retired: {entry.title}" if entry.retired is not None else entry.title
        index.append(f"| [{entry.id}]({path.name}) | {entry.component} | {title} |")
    (directory / "README.md").write_text("\n".join(index) + "\n")
    return len(catalog.entries)


# --- drafts from error records (JSON, schemaVersion 2) ----------------------------------------------

def _toml(value) -> str:
    return json.dumps(value, ensure_ascii=False)   # a JSON string or list is a valid TOML value


def _pattern(template: str) -> str:
    parts = re.split(r"\{[^{}]*\}", template)
    return "^" + "(.+?)".join(re.escape(p).replace("\\ ", " ") for p in parts) + ("$" if not template.endswith("}") else "")


def _function_at(source: str, start: int, line: int) -> str | None:
    """The def that encloses ``line`` in a source excerpt that starts at ``start``."""
    name = None
    for number, text in enumerate(source.splitlines(), start):
        if number > line:
            break
        m = re.match(r"\s*(?:async\s+)?def\s+(\w+)", text)
        if m:
            name = m.group(1)
    return name


def import_record(data: dict) -> str:
    """A draft [[entry]] in TOML from one error record; to be reviewed and reworded."""
    record = data.get("record", data)
    if record.get("schemaVersion") != 2:
        raise ValueError(f"expected schemaVersion 2, got {record.get('schemaVersion')!r}")
    repo = record.get("repo", "unknown/unknown")
    engine = repo.split("/")[-1].lower()
    path = record.get("filePath", "")
    module = re.sub(r"^(python|src)/", "", path).removesuffix(".py").replace("/", ".")
    function = _function_at(record.get("sourceCode", ""), record.get("sourceCodeStart", 0), record.get("lineNumber", 0))
    fixes = record.get("solutions") or ["(write the fixes)"]
    lines = [
        "[[entry]]",
        f"id = {_toml(engine + '/' + re.sub(r'-[0-9a-f]{6}$', '', record.get('slug', 'imported')))}",
        f"title = {_toml(record.get('errorMessage', '')[:80])}",
        f"engine = {_toml(engine)}",
        'component = "config"   # review: model-load, attention-patching, kernel-launch, kv-cache, memory, ...',
        'resolution = "fix-config"   # review: fix-config, reduce-memory, retry, drain-node, upgrade, report-bug',
        f"meaning = {_toml(record.get('documentation', ''))}",
        f"causes = {_toml([c for c in (record.get('triggerScenarios'), record.get('commonSituations')) if c])}",
        f"summary = {_toml([record.get('errorMessage', '')])}",
        f"fixes = {_toml(fixes)}",
        f"links = {_toml([record['githubUrl']] if record.get('githubUrl') else [])}",
        "[entry.match]",
        f"exceptions = {_toml([record.get('errorClass') or 'Exception'])}",
        f"message = {_toml(_pattern(record.get('messagePattern') or record.get('errorMessage', '')))}",
    ]
    if function:
        lines.append(f"sites = {_toml([f'{module}:*{function}'])}")
    lines += ["[[entry.samples]]", f"message = {_toml(record.get('errorMessage', ''))}",
              f"origin = {_toml('reported: ' + record.get('githubUrl', repo) + ' (imported record; check it)')}"]
    return "\n".join(lines) + "\n"


# --- figures -------------------------------------------------------------------------------------

def stats(catalog: Catalog) -> dict:
    samples = Counter(s.origin.split(":")[0] for e in catalog.entries.values() for s in e.samples)
    with_real = sum(1 for e in catalog.entries.values() if any(s.origin.startswith("real run") for s in e.samples))
    return {"entries": len(catalog), "by_engine": dict(Counter(e.engine for e in catalog.entries.values())),
            "samples": dict(samples), "entries_with_a_real_run_sample": with_real}
