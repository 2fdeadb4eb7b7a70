"""Per-release flag tables of sglang and vLLM, read statically from each release's argument parser.

    python -m enrich.catalog.tools.flagtable sglang 0.4.0 0.4.10 0.5.0 ... > patterns/flags/sglang.json

Nothing of the engine is imported: its parser modules are parsed with ``ast``. A flag comes from
an ``add_argument("--name", "--alias", ...)`` call or, for parsers generated from dataclasses
(sglang's ``A[type, "help"]`` / ``A[type, Arg(...)]`` fields, vLLM's ``FrontendArgs``), from a
field. A flag is deprecated when its help says so, it is registered with ``deprecated=True`` or a
``Deprecated*`` action, or a message of the parser module says ``--flag is deprecated``; its
replacement is the ``new_flag=`` given, else the first other flag that text names.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

from enrich.catalog.releases import Release, ReleaseError, release

PARSER_FILES = {
    "sglang": ["sglang/srt/server_args.py", "sglang/srt/arg_groups/**/*.py"],
    "vllm": ["vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py",
             "vllm/entrypoints/common/cli_args.py", "vllm/entrypoints/cli/serve.py"],
}
GENERATED_FROM_FIELDS = {"vllm": re.compile(r"FrontendArgs$")}   # classes whose fields become flags
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
SAYS_DEPRECATED = re.compile(r"(--[a-z][a-z0-9-]*)[`'\"]? (?:is|has been) deprecated", re.IGNORECASE)
MISSING = object()


def parser_files(rel: Release, engine: str) -> list[Path]:
    found = []
    for pattern in PARSER_FILES[engine]:
        found += [p for p in sorted(rel.root.glob(pattern)) if p.is_file()]
    return found


def _text(node, constants: dict[str, str]) -> str | None:
    """A string expression's text: constants, f-string pieces, names of module constants, ``+``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, constants), _text(node.right, constants)
        return left + right if left is not None and right is not None else None
    return None


def _literal(node, fields: dict[str, dict[str, object]]):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):   # ServerArgs.port
        return fields.get(node.value.id, {}).get(node.attr, MISSING)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_declared_default" \
            and node.args and isinstance(node.args[0], ast.Constant):
        for by_name in fields.values():
            if node.args[0].value in by_name:
                return by_name[node.args[0].value]
    return MISSING


def _json_safe(value):
    return value if isinstance(value, (str, int, float, bool, type(None))) else MISSING


def _annotated_arg(annotation) -> tuple[bool, dict] | None:
    """For ``A[T, "help"]`` / ``A[T, Arg(...)]``: (registered on the CLI, Arg keywords); else None."""
    if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)
            and annotation.value.id in ("A", "Annotated") and isinstance(annotation.slice, ast.Tuple)):
        return None
    for meta in annotation.slice.elts[1:]:
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            return True, {"help": meta}
        if isinstance(meta, ast.Call) and isinstance(meta.func, ast.Name) and meta.func.id == "Arg":
            kw = {k.arg: k.value for k in meta.keywords if k.arg}
            no_cli = isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True
            return not no_cli, kw
    return None


def scan(rel: Release, engine: str) -> dict[str, dict]:
    """Flags of one release: name -> {aliases, default, help, deprecated, use}."""
    trees = []
    for path in parser_files(rel, engine):
        try:
            trees.append(ast.parse(path.read_text(encoding="utf-8", errors="replace")))
        except SyntaxError:
            continue
    if not trees:
        raise ReleaseError(f"{rel}: no argument parser module found ({', '.join(PARSER_FILES[engine])})")
    constants: dict[str, str] = {}
    fields: dict[str, dict[str, object]] = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                text = _text(node.value, constants)
                if text is not None:
                    constants[node.targets[0].id] = text
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            fields[cls.name] = {n.target.id: _literal(n.value, {}) if n.value is not None else MISSING
                                for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    flags: dict[str, dict] = {}

    def add(names: list[str], default, help_text: str, deprecated: bool, use: str | None):
        name, aliases = names[0], names[1:]
        flag = flags.setdefault(name, {"aliases": [], "default": MISSING, "deprecated": False, "use": None})
        flag["aliases"] = sorted(set(flag["aliases"]) | set(aliases))
        if default is not MISSING:
            flag["default"] = _json_safe(default)
        # "replaces the deprecated --old" is said of the new flag: it does not deprecate this one
        said = re.sub(r"deprecated\W{0,3}--", "", help_text.lower())
        if deprecated or "deprecated" in said:
            flag["deprecated"] = True
            flag["use"] = use or flag["use"] or next((f for f in FLAG.findall(help_text) if f not in names), None)

    for tree in trees:
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            generated = GENERATED_FROM_FIELDS.get(engine)
            for node in cls.body:
                if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                    continue
                default = _literal(node.value, fields) if node.value is not None else MISSING
                arg = _annotated_arg(node.annotation)
                if arg is not None:
                    on_cli, kw = arg
                    if not on_cli:
                        continue
                    cli = _text(kw["cli_name"], constants) if "cli_name" in kw else None
                    aliases = _literal(kw["aliases"], {}) if "aliases" in kw else []
                    names = [cli or "--" + node.target.id.replace("_", "-"),
                             *(a for a in (aliases if isinstance(aliases, list) else []) if isinstance(a, str))]
                    add(names, default, _text(kw.get("help"), constants) or "", False, None)
                elif generated is not None and generated.search(cls.name) and not node.target.id.startswith("_"):
                    add(["--" + node.target.id.replace("_", "-")], default, "", False, None)
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
                continue
            names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not names or not all(n.startswith("-") for n in names):
                continue
            names = sorted(names, key=lambda n: not n.startswith("--"))     # the long spelling first
            kw = {k.arg: k.value for k in call.keywords if k.arg}
            action = ast.unparse(kw["action"]) if "action" in kw else ""
            deprecated = ("Deprecated" in action or
                          (isinstance(kw.get("deprecated"), ast.Constant) and kw["deprecated"].value is True))
            use = _text(kw["new_flag"], constants) if "new_flag" in kw else None
            if "BooleanOptionalAction" in action and names[0].startswith("--"):
                names.append("--no-" + names[0][2:])
            default = _literal(kw["default"], fields) if "default" in kw else MISSING
            if default is MISSING and action.strip("'\"") in ("store_true", "store_false"):
                default = action.strip("'\"") == "store_false"
            add(names, default,
                _text(kw.get("help"), constants) or "", deprecated, use)
    # messages of the parser modules: "--flag is deprecated ... use --other"
    for tree in trees:
        for node in ast.walk(tree):
            text = _text(node, constants) if isinstance(node, (ast.Constant, ast.JoinedStr)) else None
            for m in SAYS_DEPRECATED.finditer(text or ""):
                if m.group(1) in flags and not flags[m.group(1)]["deprecated"]:
                    flags[m.group(1)]["deprecated"] = True
                    flags[m.group(1)]["use"] = next((f for f in FLAG.findall(text[m.end():]) if f != m.group(1)), None)
    return flags


def _version_key(version: str):
    from packaging.version import Version
    return Version(version)


def build(engine: str, versions: list[str]) -> dict:
    """The compact table: per flag (under its newest spelling) the releases of each spelling,
    deprecation, and the default wherever it changes. Spellings that one release parses as the same
    flag (a name and its aliases) stay one flag across releases, whichever of them is the main one."""
    versions = sorted(dict.fromkeys(versions), key=_version_key)
    per_release = {v: scan(release(engine, v), engine) for v in versions}
    records: list[dict] = []
    by_spelling: dict[str, int] = {}
    for v in versions:
        for name, flag in per_release[v].items():
            spellings = [name, *flag["aliases"]]
            ids = sorted({by_spelling[s] for s in spellings if s in by_spelling})
            if not ids:
                ids = [len(records)]
                records.append({"spellings": {}, "seen": []})
            record = records[ids[0]]
            for other in ids[1:]:                          # two flags that became one
                records[other]["merged"] = True
                for s, seen in records[other]["spellings"].items():
                    record["spellings"].setdefault(s, seen)
                    by_spelling[s] = ids[0]
            for s in spellings:
                by_spelling[s] = ids[0]
                record["spellings"].setdefault(s, [v, v])[1] = v
            record["name"] = name
            record["seen"].append(v)
            if flag["deprecated"] and "deprecated" not in record:
                record["deprecated"] = {"since": v, **({"use": flag["use"]} if flag["use"] else {})}
            if flag["default"] is not MISSING:
                defaults = record.setdefault("default", {})
                if not defaults or list(defaults.values())[-1] != flag["default"]:
                    defaults[v] = flag["default"]
    table: dict[str, dict] = {}
    for record in records:
        if record.get("merged"):
            continue
        name = record["name"]
        first, last = record["spellings"][name]
        out = {"first": first, "last": last}
        aliases = {s: seen for s, seen in record["spellings"].items() if s != name}
        if aliases:
            out["aliases"] = aliases
        span = [v for v in versions if _version_key(record["seen"][0]) <= _version_key(v) <= _version_key(record["seen"][-1])]
        absent = [v for v in span if v not in record["seen"]]
        if absent:
            out["absent"] = absent
        for key in ("deprecated", "default"):
            if key in record:
                out[key] = record[key]
        table[name] = out
    return {"engine": engine, "releases": versions, "flags": dict(sorted(table.items()))}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] not in PARSER_FILES:
        print(f"usage: python -m enrich.catalog.tools.flagtable {{{','.join(PARSER_FILES)}}} VERSION...", file=sys.stderr)
        return 2
    try:
        table = build(argv[0], argv[1:])
    except ReleaseError as exc:
        print(f"enrich: {exc}", file=sys.stderr)
        return 1
    json.dump(table, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
