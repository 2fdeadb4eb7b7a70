"""The reference page of one catalog entry, as one model rendered three ways: for a terminal
(``enrich explain ID``), as markdown (``enrich catalog docs``) and as JSON (``--json``)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from enrich.catalog import Entry
from enrich.catalog.conditions import is_expression
from enrich.catalog.resolution import meaning as resolution_meaning


@dataclass(frozen=True)
class Page:
    id: str
    title: str
    engine: str
    component: str
    versions: str
    resolution: str                          # what an orchestrator should do (enrich.catalog.resolution)
    meaning: str                             # one paragraph, whitespace folded
    condition: str | None                    # the condition that raises, as source or in words
    retired: str | None                      # why the entry no longer matches (its ID is never reused)
    causes: tuple[str, ...]
    fixes: tuple[tuple[str, ...], ...]       # each fix: its alternatives, best first (templates)
    example: tuple[str, str] | None          # (failing, fixed)
    exceptions: tuple[str, ...]
    message: str | None                      # the message pattern
    sites: tuple[str, ...]
    source: str | None                       # the raise-line pattern
    in_text: tuple[tuple[str, ...], str | None, str] | None   # (the program's names, its other marks, the words
                                                              # that are this error beside them)
    context: str | None                      # what a log must also hold for the words to be this error
    samples: tuple[tuple[str, str, str], ...]   # (exception class, text as raised, where it came from)
    links: tuple[str, ...]


def page_of(entry: Entry) -> Page:
    def sample_text(sample) -> str:
        return sample.message or "(bare assert) " + (sample.source or "")
    return Page(
        id=entry.id, title=entry.title, engine=entry.engine, component=entry.component,
        versions=str(entry.versions) if entry.versions else "", resolution=entry.resolution, meaning=" ".join(entry.meaning.split()),
        condition=entry.condition, retired=" ".join(entry.retired.split()) if entry.retired is not None else None,
        causes=tuple(entry.causes), fixes=tuple(tuple(alts) for alts in entry.fixes),
        example=(entry.example[0].strip(), entry.example[1].strip()) if entry.example is not None else None,
        exceptions=tuple(entry.exceptions), message=entry.message.pattern if entry.message is not None else None,
        sites=tuple(entry.sites), source=entry.source.pattern if entry.source is not None else None,
        in_text=((entry.in_text.names, entry.in_text.marks, entry.in_text.message.pattern)
                 if entry.in_text is not None else None),
        context=entry.context.pattern if entry.context is not None else None,
        samples=tuple((s.exception or entry.exceptions[0], sample_text(s), s.origin) for s in entry.samples), links=tuple(entry.links))


def terminal(page: Page, width: int = 88) -> str:
    def para(text: str, hang: int = 0) -> str:
        return textwrap.fill(" ".join(text.split()), width=width, initial_indent="  ",
                             subsequent_indent="  " + " " * hang)

    lines = [f"{page.id}: {page.title}", f"  engine: {page.engine}   component: {page.component}"
             + (f"   versions: {page.versions}" if page.versions else ""),
             f"  resolution: {page.resolution}: {resolution_meaning(page.resolution)}", ""]
    if page.retired is not None:
        lines += ["Retired (never matched; the ID is not reused)", para(page.retired), ""]
    lines += ["What it means", para(page.meaning), ""]
    if page.condition is not None:
        lines += ["The condition that raises", para(page.condition), ""]
    lines += ["Usual causes"]
    lines += [para(f"- {cause}", 2) for cause in page.causes]
    lines += ["", "Fixes (enrich fills in the values of the failing process)"]
    lines += [para(f"{i}. {' / or: '.join(alts)}", 3) for i, alts in enumerate(page.fixes, 1)]
    if page.example is not None:
        failing, fixed = page.example
        lines += ["", "Failing", textwrap.indent(failing, "    "), "Fixed", textwrap.indent(fixed, "    ")]
    lines += ["", "Recognised by", f"  exceptions: {', '.join(page.exceptions)}"]
    if page.message is not None:
        lines.append(f"  message:    {page.message}")
    lines += [f"  raise site: {site}" for site in page.sites]
    if page.source is not None:
        lines.append(f"  source:     {page.source}")
    if page.in_text is not None:
        lines += [f"  in a log showing: {_at_work(page)}", f"  also:       {page.in_text[2]}"]
    if page.context is not None:
        lines.append(f"  in a log only with: {page.context}")
    lines += ["", "Samples"]
    for _, text, origin in page.samples:
        lines += [f"  {text}", f"    from {origin}"]
    if page.links:
        lines += ["", "Source"] + [f"  {link}" for link in page.links]
    return "\n".join(lines)


def markdown(page: Page) -> str:
    lines = [f"# {page.id}: {page.title}", "",
             f"*{page.engine}, {page.component}*" + (f", versions `{page.versions}`" if page.versions else ""), "",
             f"Resolution: `{page.resolution}` ({resolution_meaning(page.resolution)})", ""]
    if page.retired is not None:
        lines += ["## Retired", "", "enrich no longer matches this entry, and its ID is not reused: " + page.retired, ""]
    lines += ["## What it means", "", page.meaning, ""]
    if page.condition is not None:
        lines += ["## The condition that raises", "", f"`{page.condition}`" if is_expression(page.condition)
                  else " ".join(page.condition.split()), ""]
    lines += ["## Usual causes", ""]
    lines += [f"- {cause}" for cause in page.causes]
    lines += ["", "## Fixes", "", "enrich fills the `{values}` in from the failing process.", ""]
    lines += [f"{i}. " + " — or: ".join(f"`{alt}`" if "{" in alt else alt for alt in alts)
              for i, alts in enumerate(page.fixes, 1)]
    if page.example is not None:
        failing, fixed = page.example
        lines += ["", "## Example", "", "Failing:", "", "```", failing, "```", "", "Fixed:", "", "```", fixed, "```"]
    if page.samples:
        exception, text, origin = page.samples[0]
        lines += ["", "## The error as it appears", "", "```", f"{exception}: {text}", "```",
                  f"From {origin}."]
    lines += ["", "## How enrich recognises it", "", f"- exceptions: {', '.join(page.exceptions)}"]
    if page.message is not None:
        lines.append(f"- message: `{page.message}`")
    lines += [f"- raise site: `{site}`" for site in page.sites]
    if page.source is not None:
        lines.append(f"- source line: `{page.source}`")
    if page.in_text is not None:
        lines.append(f"- in a log that shows {_at_work(page, '`')} (read by `enrich explain`), also: `{page.in_text[2]}`")
    if page.context is not None:
        lines.append(f"- in a log (read by `enrich explain`), only where the text also holds: `{page.context}`")
    if len(page.samples) > 1:
        lines += ["", "## Other samples", ""] + [f"- `{text[:200]}` ({origin})" for _, text, origin in page.samples[1:]]
    lines += ["", "## Source", ""] + [f"- {link}" for link in page.links]
    return "\n".join(lines) + "\n"


def _at_work(page: Page, quote: str = "") -> str:
    """What shows the program at work: its names, or its other marks ("vllm or `\\bvllm[./]...`")."""
    names, marks, _ = page.in_text
    return " or ".join([*names, *([f"{quote}{marks}{quote}"] if marks else [])])


def as_json(page: Page) -> dict:
    data = dict(page.__dict__)
    data["fixes"] = [list(alts) for alts in page.fixes]
    data["example"] = {"failing": page.example[0], "fixed": page.example[1]} if page.example else None
    data["samples"] = [{"exception": exc, "text": text, "origin": origin} for exc, text, origin in page.samples]
    data["in_text"] = ({"names": list(page.in_text[0]), "shows": page.in_text[1], "message": page.in_text[2]}
                       if page.in_text else None)
    for name in ("causes", "exceptions", "sites", "links"):
        data[name] = list(data[name])
    return data
