"""``enrich run -- CMD ...``: the command, with enrich active in it and every Python process it starts."""

from __future__ import annotations

import argparse

from enrich.cli.output import CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a command with enrich active in it and every Python process it starts")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from enrich.activation.supervisor import run as launch   # loads the catalog: only for this command

    command = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not command:
        raise CliError("run needs a command, e.g. enrich run -- python -m sglang.launch_server ...")
    try:
        return launch(command)
    except FileNotFoundError:
        raise CliError(f"run: command not found: {command[0]}", code=127) from None
    except PermissionError:
        raise CliError(f"run: cannot execute {command[0]}: permission denied", code=126) from None

