"""install / uninstall / annotate, and the promises about the host's exception."""

import asyncio
import os
import pickle
import subprocess
import sys
import threading
import traceback

import pytest

import enrich
from enrich import guard, sinks
from enrich.activation.integration import Integration, Target

DEMO = Integration(name="demo", targets=(
    Target("launch", "demo_targets", "launch"),
    Target("load", "demo_targets", "Loader.load"),
    Target("static", "demo_targets", "Loader.load_static"),
    Target("class", "demo_targets", "Loader.load_class"),
    Target("async", "demo_targets", "Loader.load_async"),
))


@pytest.fixture
def demo(demo_catalog):
    handle = enrich.install(integrations=[DEMO])
    import demo_targets
    yield handle, demo_targets
    enrich.uninstall()


def raised(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def test_install_is_idempotent_and_uninstall_restores_hooks(demo_catalog):
    before_sys, before_thread = sys.excepthook, threading.excepthook
    first = enrich.install(integrations=[])
    assert enrich.install(integrations=[DEMO]) is first
    assert sys.excepthook is not before_sys and threading.excepthook is not before_thread
    enrich.uninstall()
    assert sys.excepthook is before_sys and threading.excepthook is before_thread
    assert enrich.install(integrations=[]) is not first
    enrich.uninstall()


def test_uninstall_leaves_a_hook_installed_on_top_of_ours(demo_catalog):
    original = sys.excepthook
    enrich.install(integrations=[])
    theirs = lambda *a: None  # noqa: E731
    sys.excepthook = theirs
    enrich.uninstall()
    assert sys.excepthook is theirs
    sys.excepthook = original


def test_entrypoint_exception_leaves_with_one_note_and_values(demo):
    handle, demo_targets = demo
    assert {"demo.launch", "demo.load", "demo.static", "demo.class", "demo.async"} <= set(handle.wrapped)
    exc = raised(demo_targets.Loader().load, 16, 6)   # passes two wrapped layers
    assert type(exc) is AssertionError and exc.args == ("16 is not divisible by 6",)
    [note] = exc.__notes__
    assert note.splitlines()[0] == "[demo/not-divisible] 16 cannot be cut into 6 shards; divisors: 1, 2, 4, 8, 16."
    assert "  fix 1: use one of 1, 2, 4, 8, 16" in note and "more: enrich explain demo/not-divisible" in note
    record = exc._enrich
    assert record["id"] == "demo/not-divisible" and record["mechanism"] == "entrypoint:demo.launch"
    assert record["site"] == "demo_targets:ensure_split"
    assert record["values"]["secret_token"] == "[redacted]"   # redacted by key


def test_static_class_and_async_methods_are_wrapped(demo):
    _, demo_targets = demo
    for exc in (raised(demo_targets.Loader.load_static, 9, 2), raised(demo_targets.Loader.load_class, 9, 2)):
        assert len(exc.__notes__) == 1
    exc = raised(asyncio.run, demo_targets.Loader().load_async(9, 2))
    assert len(exc.__notes__) == 1
    assert demo_targets.Loader.load_static(8, 2) == 4 and demo_targets.Loader.load_class(8, 2) == 4


def test_reraising_and_annotating_again_adds_no_second_note(demo):
    _, demo_targets = demo
    exc = raised(demo_targets.launch, 10, 3)
    for _ in range(3):
        assert enrich.annotate(exc).id == "demo/not-divisible"
    try:
        try:
            demo_targets.launch(10, 3)
        except AssertionError as inner:
            raise RuntimeError("wrapper") from inner
    except RuntimeError as outer:
        assert enrich.annotate(outer).id == "demo/not-divisible"
        assert not hasattr(outer, "__notes__") and len(outer.__cause__.__notes__) == 1


def test_enriched_exception_survives_pickling(demo):
    _, demo_targets = demo
    exc = pickle.loads(pickle.dumps(raised(demo_targets.launch, 10, 3)))
    assert exc._enrich["id"] == "demo/not-divisible" and len(exc.__notes__) == 1
    assert enrich.annotate(exc).summary.startswith("10 cannot be cut into 3")
    assert len(exc.__notes__) == 1


def test_wrapped_module_function_still_pickles_and_from_import_copies_follow(demo_catalog):
    import demo_targets
    copy = demo_targets.launch                     # a `from demo_targets import launch` taken before install
    namespace = type(sys)("holder")
    namespace.launch = copy
    sys.modules["holder"] = namespace
    try:
        enrich.install(integrations=[DEMO])
        assert namespace.launch is demo_targets.launch is not copy
        assert pickle.loads(pickle.dumps(demo_targets.launch)) is demo_targets.launch
        enrich.uninstall()
        assert namespace.launch is copy and demo_targets.launch is copy
    finally:
        del sys.modules["holder"]
        enrich.uninstall()


def test_a_target_can_be_switched_off_by_name(demo_catalog):
    import demo_targets
    handle = enrich.install(integrations=[DEMO], disable=("demo.launch",))
    try:
        assert "demo.launch" not in handle.wrapped and "demo.load" in handle.wrapped
        assert not hasattr(demo_targets.launch, "__enrich_wrapped__")
    finally:
        enrich.uninstall()


def test_unknown_exceptions_get_nothing(demo):
    exc = ValueError("nothing we know")
    assert enrich.annotate(exc) is None
    assert not hasattr(exc, "__notes__") and "_enrich" not in exc.__dict__


def test_a_failing_sink_never_reaches_the_host(demo):
    _, demo_targets = demo
    def broken(exc, enrichment):
        raise RuntimeError("sink bug")
    sinks.add_sink(broken)
    try:
        before = guard.internal_error_count()
        exc = raised(demo_targets.launch, 7, 2)
        assert type(exc) is AssertionError and len(exc.__notes__) == 1
        assert guard.internal_error_count() == before + 1
    finally:
        sinks.remove_sink(broken)


def test_control_flow_exceptions_pass_untouched(demo):
    for exc in (KeyboardInterrupt(), SystemExit(1), GeneratorExit(), asyncio.CancelledError()):
        assert enrich.annotate(exc) is None and not hasattr(exc, "__notes__")


def test_captured_values_never_use_repr():
    from enrich.capture import display

    class Hostile:
        def __repr__(self):
            raise AssertionError("repr called")
        __str__ = __repr__

    assert display(Hostile()) == "<Hostile>"
    assert display("https://user:pw@host/x hf_" + "a" * 30) == "https://[redacted]@host/x [redacted]"
    assert display("x" * 1000).endswith("…") and len(display("x" * 1000)) == 120


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_import_enrich_imports_nothing_heavy():
    out = _run("import sys, enrich; print(sorted(m for m in ('wrapt','structlog','torch','mlx','sglang',"
               "'vllm','opentelemetry','opentelemetry.sdk') if m in sys.modules))")
    assert out.stdout.strip() == "[]", out.stderr


def test_excepthook_shows_the_note_for_an_uncaught_error_and_chains():
    code = ("import sys, enrich\n"
            "sys.excepthook = (lambda prev: lambda *a: (print('theirs ran'), prev(*a)))(sys.excepthook)\n"
            "enrich.install(integrations=[])\n"
            "def ensure_divisibility(numerator, denominator):\n"
            "    assert numerator % denominator == 0, '{} is not divisible by {}'.format(numerator, denominator)\n"
            "ensure_divisibility(16, 6)\n")
    out = _run(code)
    assert "AssertionError: 16 is not divisible by 6\n[sglang/not-divisible] 16 cannot be cut into 6" in out.stderr
    assert "theirs ran" in out.stdout


def test_disabled_by_environment():
    out = _run("import enrich; h = enrich.install(); print(h.active, h.wrapped);"
               "e = AssertionError('16 is not divisible by 6'); print(enrich.annotate(e))", ENRICH_DISABLED="1")
    assert out.stdout.split() == ["False", "[]", "None"], out.stderr


def test_threading_excepthook_enriches(demo):
    _, demo_targets = demo
    seen = []
    previous = threading.excepthook.previous
    threading.excepthook.previous = lambda args: seen.append(args.exc_value)
    try:
        thread = threading.Thread(target=lambda: demo_targets.ensure_split(5, 2))
        thread.start()
        thread.join()
    finally:
        threading.excepthook.previous = previous
    [exc] = seen
    assert exc._enrich["mechanism"] == "threading"
    assert "".join(traceback.format_exception(exc)).count("[demo/not-divisible]") == 1


def test_a_failing_hook_never_replaces_the_exception():
    from enrich.activation.wrapping import make_seam, make_wrapper

    def broken_hook(*_):
        raise RuntimeError("enrich bug")

    def fails():
        raise ValueError("the host's")

    with pytest.raises(ValueError) as info:
        make_wrapper(fails, broken_hook)()
    assert info.value.args == ("the host's",) and info.value.__context__ is None
    assert make_seam(lambda x, y=2: x + y, broken_hook)(1) == 3


def test_wrappers_keep_the_call_semantics():
    from enrich.activation.wrapping import make_wrapper, wrappable

    def f(a, b=2, /, c=3, *args, d, e=5, **kw):
        return a, b, c, args, d, e, kw
    f.__signature__ = None     # what a decorator may leave behind: ignored, the code object rules
    wrapped = make_wrapper(f, lambda exc: None)
    assert wrapped(1, d=4) == f(1, d=4)
    assert wrapped(1, 2, 3, 9, d=4, z=0) == f(1, 2, 3, 9, d=4, z=0)

    def gen():
        yield 1
    assert not wrappable(gen)


def test_one_note_when_threads_reraise_the_same_exception(demo_catalog):
    from concurrent.futures import ThreadPoolExecutor
    exc = AssertionError("16 is not divisible by 6")
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: enrich.annotate(exc), range(32)))
    assert {r.id for r in results} == {"demo/not-divisible"} and len(exc.__notes__) == 1


def test_no_repr_of_the_hosts_arguments(demo_catalog):
    class Tensorish:
        def __repr__(self):
            raise AssertionError("repr called")
    enrich.annotate(RuntimeError("16 is not divisible by 6", Tensorish()))
    enrich.annotate(KeyError(Tensorish()))


def test_a_wrapper_error_yields_to_the_error_it_wraps():
    """sglang's "Capture cuda graph failed: {e}" around a known error: the inner one is explained."""
    def capture():
        try:
            raise AssertionError("16 is not divisible by 6")
        except AssertionError as e:
            raise Exception(f"Capture cuda graph failed: {e}\nPossible solutions:\n"
                            "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)") from e
    with pytest.raises(Exception) as info:
        capture()
    outer = info.value
    assert enrich.annotate(outer).id == "sglang/not-divisible"
    assert not hasattr(outer, "__notes__") and len(outer.__cause__.__notes__) == 1
    assert enrich.annotate(Exception("Capture cuda graph failed: boom")).id == "sglang/cuda-graph-capture-failed"
