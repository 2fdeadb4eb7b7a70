"""The ``enrich`` command: ``explain ID|PATH...``, ``catalog ACTION``, ``run -- CMD``."""

from __future__ import annotations

import signal
import sys

from enrich.cli import catalog, explain, run
from enrich.cli.output import CliError, Parser

# Each command group adds its subcommands to the parser: a new group is one module and one name here.
COMMANDS = (explain.register, catalog.register, run.register)
# Commands with a parser of their own (module with ``main(argv)``, help): the words after the name are theirs.
OWN_PARSER = {"preflight": ("enrich.preflight.cli", "predict from config.json, the command line and the GPU "
                                                   "whether an engine launch will fail")}


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as installed

    import enrich
    try:
        return f"enrich {installed('enrich-llm')}"
    except PackageNotFoundError:   # run from a checkout that is not installed
        return f"enrich {enrich.__version__}"


def parser() -> Parser:
    top = Parser(prog="enrich", description=__doc__)
    top.add_argument("--version", action="version", version=version())
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in COMMANDS:
        register(sub)
    for name, (_, help) in OWN_PARSER.items():
        sub.add_parser(name, help=help, add_help=False)
    return top


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):   # `enrich catalog list | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in OWN_PARSER:
        from importlib import import_module
        return import_module(OWN_PARSER[argv[0]][0]).main(argv[1:])
    try:
        args = parser().parse_args(argv)
        return args.run(args)
    except CliError as error:
        print(f"enrich: {error}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        return 130
