"""enrich run -- CMD: errors are one line; the command runs with enrich active."""

import sys

from cli_run import assert_one_line_error, run_cli


def test_a_command_that_does_not_exist():
    assert_one_line_error(run_cli("run", "--", "no-such-command-here"), 127,
                          "run: command not found: no-such-command-here")


def test_no_command():
    assert_one_line_error(run_cli("run"), 2, "run needs a command")
    assert_one_line_error(run_cli("run", "--"), 2, "run needs a command")


def test_the_command_runs_with_enrich_installed():
    out = run_cli("run", "--", sys.executable, "-c",
                  "import sys, enrich; print('enrich' in sys.modules and sys.excepthook is not sys.__excepthook__)")
    assert (out.returncode, out.stdout) == (0, "True\n"), out.stderr
