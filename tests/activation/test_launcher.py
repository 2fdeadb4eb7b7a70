"""`enrich run` activates enrich in a command and every Python process it starts."""

import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json, multiprocessing as mp, subprocess, sys

    def report(queue):
        from enrich.activation.installer import current
        queue.put(bool(current() and current().active))

    if __name__ == "__main__":
        from enrich.activation.installer import current
        results = {"parent": bool(current() and current().active),
                   "start_method_untouched": mp.get_start_method(allow_none=True) is None}
        for method in ("spawn", "forkserver", "fork"):
            ctx = mp.get_context(method)
            queue = ctx.Queue()
            child = ctx.Process(target=report, args=(queue,))
            child.start()
            results[method] = queue.get(timeout=120)
            child.join()
        failing = ("def ensure_divisibility(numerator, denominator):\\n"
                   "    assert numerator % denominator == 0, '{} is not divisible by {}'.format(numerator, denominator)\\n"
                   "ensure_divisibility(16, 6)\\n")
        out = subprocess.run([sys.executable, "-c", failing], capture_output=True, text=True)
        results["subprocess_note"] = "[sglang/not-divisible] 16 cannot be cut into 6" in out.stderr
        print(json.dumps(results))
""")


def test_enrich_run_reaches_spawn_forkserver_fork_and_subprocess_children(tmp_path):
    (tmp_path / "app.py").write_text(SCRIPT)
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    (user_site / "sitecustomize.py").write_text("import os\nos.environ['USER_SITECUSTOMIZE_RAN'] = '1'\n")
    env = {**os.environ, "PYTHONPATH": str(user_site)}
    env.pop("ENRICH_AUTO", None)
    out = subprocess.run([sys.executable, "-m", "enrich", "run", "--", sys.executable, "-c",
                          "import os, runpy; print(os.environ.get('USER_SITECUSTOMIZE_RAN'));"
                          f"runpy.run_path({str(tmp_path / 'app.py')!r}, run_name='__main__')"],
                         env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    first, second = out.stdout.strip().splitlines()[-2:]
    assert first == "1", out.stderr            # the user's own sitecustomize still ran
    assert json.loads(second) == {"parent": True, "spawn": True, "forkserver": True, "fork": True,
                                  "subprocess_note": True, "start_method_untouched": True}, out.stderr


def test_without_the_opt_in_nothing_is_activated(tmp_path):
    from enrich.activation.launcher import BOOTSTRAP
    env = {**os.environ, "PYTHONPATH": str(BOOTSTRAP)}
    env.pop("ENRICH_AUTO", None)
    out = subprocess.run([sys.executable, "-c", "from enrich.activation.installer import current; print(current())"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "None", out.stderr


def test_a_forked_child_is_not_blocked_by_a_lock_held_in_the_parent(demo_catalog):
    import enrich
    from enrich import state

    with state.lock:                       # a fork while another thread is inside install()
        pid = os.fork()
        if pid == 0:                             # child: must be able to take the lock and enrich
            try:
                handle = enrich.install(integrations=[])
                exc = AssertionError("16 is not divisible by 6")
                ok = handle.active and enrich.annotate(exc) is not None
            finally:
                os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    enrich.uninstall()
    assert os.waitstatus_to_exitcode(status) == 0
