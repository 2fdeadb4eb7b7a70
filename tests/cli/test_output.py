"""--version, colour (--color, NO_COLOR, FORCE_COLOR), one-line usage errors."""

import enrich
from cli_run import KNOWN_LOG, assert_one_line_error, run_cli

BOLD = "\x1b[1m"


def test_version():
    out = run_cli("--version")
    assert (out.returncode, out.stdout) == (0, f"enrich {enrich.__version__}\n")


def test_colour_switches():
    def coloured(*args, **env) -> bool:
        out = run_cli("explain", *args, KNOWN_LOG, env=env)
        assert out.returncode == 1
        return BOLD in out.stdout
    assert not coloured()                                   # stdout is a pipe here
    assert coloured(FORCE_COLOR="1")
    assert not coloured(FORCE_COLOR="0")
    assert not coloured(NO_COLOR="1", FORCE_COLOR="1")
    assert coloured("--color=always", NO_COLOR="1")         # the flag wins over the environment
    assert not coloured("--color=never", FORCE_COLOR="1")
    page = run_cli("explain", "--color=always", "sglang/attn-tp-kv-heads").stdout
    assert page.startswith(BOLD + "sglang/attn-tp-kv-heads: ")
    assert_one_line_error(run_cli("explain", "--color=sometimes", KNOWN_LOG), 2, "invalid choice")


def test_no_command_and_unknown_command():
    assert_one_line_error(run_cli(), 2, "required: COMMAND")
    assert_one_line_error(run_cli("frobnicate"), 2, "invalid choice: 'frobnicate'")


def test_a_command_with_its_own_parser_gets_the_words_after_its_name():
    out = run_cli("preflight")
    assert out.returncode == 2 and out.stderr.startswith("enrich preflight: give the launch command")
    assert "preflight" in run_cli("--help").stdout
