"""How often a paste cut short still names its entry: each dev positive that the reader names,
cut inside the line of that finding after a number of the message's characters.

    python benchmarks/cut_pastes.py                    # every family, the dev split only
    python benchmarks/cut_pastes.py --family vllm

An index cuts an excerpt at a fixed length, a collector at its line limit, a writer where the
message seemed said: the text then ends in the message ("end"), or the writer marks the cut and
goes on ("dots": " ...", then the lines after it). A cut that keeps only a message's first words
may fit several entries; the report gives, for each length kept, how many cuts lose the entry.
A paste may also stop before the exception's line ("frames"): where its raise frame is a site
that only this entry lists, the frames alone should still name it.
The test split is not read here: it is what recognition.py scores without tuning.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recognition import CORPUS, load_rows, read_log  # noqa: E402

from enrich.catalog import get_catalog  # noqa: E402
from enrich.facts import Frame  # noqa: E402
from enrich.match import sites_at  # noqa: E402

KEPT = (25, 35, 50, 70, 100)     # characters of the message left before the cut
HEAD = 15                        # characters of a finding's message that find it in its line


def root_ids(text: str) -> set[str]:
    return {f.id for f in read_log(text) if f.id and f.root_cause}


def cuts(text: str, finding) -> list[tuple[int, str, str]]:
    """(characters kept, variant, the cut text) for one finding's line."""
    lines = text.splitlines(keepends=True)
    if not 1 <= finding.line <= len(lines) or not finding.message[:HEAD]:
        return []
    line = lines[finding.line - 1]
    at = line.find(finding.message[:HEAD])
    if at < 0:
        return []
    start = sum(len(earlier) for earlier in lines[:finding.line - 1]) + at
    shown = len(line.rstrip("\n")) - at
    rest = "".join(lines[finding.line:])
    return [(kept, variant, text[:start + kept] + ("" if variant == "end" else " ...\n" + rest))
            for kept in KEPT if kept < shown - 3 for variant in ("end", "dots")]


def before_message(text: str, finding) -> str | None:
    """The text cut before the finding's exception line, where its raise frame is a site of its
    entry and of no other (a site two entries share needs the message to tell them apart)."""
    module, _, function = finding.site.partition(":")
    if not finding.exception or not module:
        return None
    frame = Frame(module, function, textual=True)
    entries = get_catalog().entries
    if not sites_at(entries[finding.id], frame) or any(
            other.id != finding.id and sites_at(other, frame) for other in entries.values()):
        return None
    name = re.compile(r"^\W*(?:[\w.]+\.)?" + re.escape(finding.exception.rsplit(".", 1)[-1]) + r"\b(?!\()")
    lines = text.splitlines(keepends=True)
    at = next((i for i in range(finding.line - 1, min(len(lines), finding.line + 40)) if name.match(lines[i])), None)
    return None if at is None else "".join(lines[:at])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", help="one family folder only")
    args = parser.parse_args(argv)
    lost, tried = Counter(), Counter()
    for row in load_rows(args.family):
        if row["split"] != "dev" or not row["expect"] or not row["identifiable"]:
            continue
        text = (CORPUS / row["family"] / row["file"]).read_text(encoding="utf-8")
        found = read_log(text)
        if not set(row["expect"]) <= {f.id for f in found if f.id and f.root_cause}:
            continue       # a miss already: recognition.py reports it
        for entry in row["expect"]:
            finding = next(f for f in found if f.id == entry and f.root_cause)
            for kept, variant, cut in cuts(text, finding):
                tried[kept, variant] += 1
                lost[kept, variant] += entry not in root_ids(cut)
            frames = before_message(text, finding)
            if frames is not None:
                tried[0, "frames"] += 1
                lost[0, "frames"] += entry not in root_ids(frames)
    print(f"{'kept':>6} {'variant':>8} {'cuts':>7} {'lost':>6} {'lost%':>6}")
    for kept, variant in [*((kept, variant) for kept in KEPT for variant in ("end", "dots")), (0, "frames")]:
        n = tried[kept, variant]
        share = f"{100 * lost[kept, variant] / n:.0f}%" if n else "-"
        print(f"{kept:>6} {variant:>8} {n:>7} {lost[kept, variant]:>6} {share:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
