"""enrich next to the other tools that hook exceptions: every hook still fires, in order, and
uninstall() leaves the others in place."""

import os
import subprocess
import sys
import textwrap

import pytest

FAIL = textwrap.dedent("""
    def ensure_divisibility(numerator, denominator):
        assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)
    ensure_divisibility(16, 6)
""")


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code) + FAIL], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200", "TERM": "dumb"})


def test_sentry_sdk_sees_the_exception_with_the_note_and_its_hook_still_runs():
    pytest.importorskip("sentry_sdk")
    out = run("""
        import json, sentry_sdk
        def before_send(event, hint):
            value = event["exception"]["values"][-1]["value"]
            print("SENTRY:", json.dumps(value), flush=True)
            return None
        sentry_sdk.init(dsn="http://public@127.0.0.1:9/1", before_send=before_send)
        import enrich
        enrich.install(integrations=[])
    """)
    assert "SENTRY:" in out.stdout, out.stderr          # sentry's excepthook ran (it is chained)
    assert "[sglang/not-divisible]" in out.stdout       # and saw the note, added before it
    assert out.stderr.count("[sglang/not-divisible]") == 1   # the default hook printed it once


def test_rich_traceback_renders_the_note():
    pytest.importorskip("rich")
    out = run("""
        import rich.traceback
        rich.traceback.install(width=200)
        import enrich
        enrich.install(integrations=[])
    """)
    assert "16 is not divisible by 6" in out.stderr and "[sglang/not-divisible]" in out.stderr, out.stderr[-2000:]


def test_installed_before_another_hook_and_uninstalled_after_it():
    out = run("""
        import sys, enrich
        enrich.install(integrations=[])
        previous = sys.excepthook
        def theirs(*args):
            print("THEIRS", flush=True)
            previous(*args)
        sys.excepthook = theirs
        enrich.uninstall()
        assert sys.excepthook is theirs
    """)
    assert "THEIRS" in out.stdout and "AssertionError: 16 is not divisible by 6" in out.stderr
    assert "[sglang/" not in out.stderr        # uninstalled: the hook left in the chain passes through


def test_a_broken_catalog_or_integration_plugin_is_reported_once_and_the_rest_works(tmp_path):
    info = tmp_path / "broken_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[enrich.catalogs]\nbroken = no_such_package\n\n"
                                           "[enrich.integrations]\nbroken = no_such_module:integration\n")
    out = subprocess.run([sys.executable, "-c", "import enrich\nenrich.install()\n" + FAIL], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.stderr.count("integration 'broken' could not be loaded") == 1
    assert out.stderr.count("catalog 'broken' could not be loaded") == 1
    assert "[sglang/not-divisible] 16 cannot be cut into 6" in out.stderr
