"""A callback or task that fails inside an event loop gets its note: asyncio's loops and uvloop's
(sglang's tokenizer manager and HTTP server, vLLM's API server run on uvloop)."""

import subprocess
import sys

import pytest

NOTE = "[torch/cuda-device-assert]"

PROGRAM = """
import asyncio, logging, sys
logging.basicConfig(level=logging.INFO)
{first}
{second}

def callback():
    raise RuntimeError("CUDA error: device-side assert triggered")

async def main():
    asyncio.get_running_loop().call_soon(callback)
    await asyncio.sleep(0.05)

{runner}(main())
{after}
"""


def run(first: str, second: str, runner: str, after: str = "") -> str:
    code = PROGRAM.format(first=first, second=second, runner=runner, after=after)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "ENRICH_AUTO": "0"})
    assert out.returncode == 0, out.stderr
    assert "Exception in callback" in out.stderr, out.stderr
    return out.stderr


@pytest.mark.parametrize("order", ["uvloop first", "enrich first"])
def test_uvloop_callback_gets_the_note(order):
    pytest.importorskip("uvloop")
    lines = ["import uvloop", "import enrich; enrich.install()"]
    first, second = lines if order == "uvloop first" else lines[::-1]
    if order == "enrich first":
        second += "\nimport uvloop"
    assert run(first, second, "uvloop.run").count(NOTE) == 1


def test_asyncio_callback_gets_the_note():
    assert run("import enrich; enrich.install()", "", "asyncio.run").count(NOTE) == 1


def test_uninstall_gives_uvloop_its_own_handler_back():
    pytest.importorskip("uvloop")
    after = ("enrich.uninstall(); import asyncio.base_events as b; "
             "assert not hasattr(uvloop.Loop.call_exception_handler, 'enrich_previous'); "
             "assert not hasattr(b.BaseEventLoop.call_exception_handler, 'enrich_previous')")
    code_first = "import uvloop\nimport enrich; enrich.install()"
    assert NOTE in run(code_first, "", "uvloop.run", after)
