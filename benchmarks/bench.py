"""enrich benchmarks: overhead of wrapped entrypoints, match time versus catalog size, start-up,
scanning a large log.

    python benchmarks/bench.py            # all sections
    python benchmarks/bench.py wrap match startup scan

Every figure is a median of repeated runs, measured side by side in one process, with the
ratio against its baseline; quote the machine with them.
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def median_ns(stmt, number: int, repeat: int = 7, setup=lambda: None) -> float:
    return statistics.median(timeit.repeat(stmt, setup=setup, number=number, repeat=repeat)) / number * 1e9


# --- 1. the success path of a wrapped entrypoint -----------------------------------------------

def bench_wrap() -> None:
    import wrapt

    from enrich.activation.wrapping import make_wrapper

    def plain(x, y=1):
        return x

    class Holder:
        def method(self, x, y=1):
            return x

    on_error = lambda exc: None  # noqa: E731
    ours = make_wrapper(plain, on_error)

    class Ours:
        method = make_wrapper(Holder.method, on_error)

    def wrapt_wrapper(wrapped, instance, args, kwargs):
        try:
            return wrapped(*args, **kwargs)
        except Exception as exc:
            on_error(exc)
            raise

    theirs = wrapt.FunctionWrapper(plain, wrapt_wrapper)

    class Theirs:
        method = wrapt.FunctionWrapper(Holder.method, wrapt_wrapper)

    n = 1_000_000
    h, o, t = Holder(), Ours(), Theirs()
    rows = [
        ("function, bare call", median_ns(lambda: plain(1), n)),
        ("function, enrich wrapper", median_ns(lambda: ours(1), n)),
        ("function, wrapt FunctionWrapper", median_ns(lambda: theirs(1), n)),
        ("method, bare call", median_ns(lambda: h.method(1), n)),
        ("method, enrich wrapper", median_ns(lambda: o.method(1), n)),
        ("method, wrapt FunctionWrapper", median_ns(lambda: t.method(1), n)),
    ]
    print("\n## Success path of a wrapped entrypoint (ns per call, median of 7 x 1e6; includes the lambda)")
    for kind in ("function", "method"):
        bare = next(v for k, v in rows if k == f"{kind}, bare call")
        for label, value in rows:
            if label.startswith(kind):
                extra = "" if label.endswith("bare call") else f"  added {value - bare:6.1f} ns  ratio {value / bare:4.2f}x"
                print(f"  {label:34s} {value:7.1f}{extra}")


# --- 2. match time against catalog size -----------------------------------------------------

def bench_match() -> None:
    import random

    from raise_sites import entries

    from enrich.catalog import Catalog
    from enrich.match import best_match
    from enrich.catalog.tools.samples import sample_facts

    pool = entries(10_000)
    print(f"\n## Match time per exception (µs, median), catalog generated from {len(pool)} real sglang raise sites")
    print(f"  {'entries':>8} {'indexed, site+msg':>18} {'indexed, msg only':>18} {'linear regex scan':>18} {'ratio':>7}")
    rng = random.Random(0)
    for size in (100, 1_000, 10_000):
        catalog = Catalog({e.id: e for e in pool[:size]})
        chosen = rng.sample(list(catalog.entries.values()), min(200, size))
        with_site = [sample_facts(e, e.samples[0]) for e in chosen]
        worded = [e for e in chosen if e.message is not None]
        message_only = [sample_facts(e, e.samples[0].__class__(message=e.samples[0].message, origin="-"))
                        for e in worded]
        hits = sum(best_match(f, catalog) is not None for f in with_site)
        assert hits == len(with_site), hits

        def linear(facts_list=message_only, entries=list(catalog.entries.values())):
            for facts in facts_list:
                for entry in entries:
                    if (entry.exceptions[0] in facts.classes and entry.message is not None
                            and entry.message.search(facts.message)):
                        break

        indexed_site = median_ns(lambda: [best_match(f, catalog) for f in with_site], 1, 5) / len(chosen) / 1000
        indexed_msg = median_ns(lambda: [best_match(f, catalog) for f in message_only], 1, 5) / len(worded) / 1000
        scan = median_ns(linear, 1, 3) / len(worded) / 1000
        print(f"  {size:>8} {indexed_site:>18.2f} {indexed_msg:>18.2f} {scan:>18.2f} {scan / indexed_msg:>6.0f}x")


# --- 3. start-up ----------------------------------------------------------------------------

def bench_startup() -> None:
    runs = {
        "python -c pass": "pass",
        "import enrich": "import enrich",
        "import enrich; enrich.install()": "import enrich; enrich.install()",
    }
    print("\n## Start-up (ms, median of 15 fresh interpreters)")
    base = None
    for label, code in runs.items():
        times = []
        for _ in range(15):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append((time.perf_counter() - start) * 1000)
        value = statistics.median(times)
        base = base or value
        print(f"  {label:34s} {value:7.1f}  added {value - base:6.1f} ms")


# --- 4. scanning a large log ----------------------------------------------------------------

FILLER = [
    "[2026-05-12 07:08:{s:02d} TP{r}] Decode batch. #running-req: 37, #token: 81234, token usage: 0.41, "
    "cuda graph: True, gen throughput (token/s): 4521.33, #queue-req: 0\n",
    "[2026-05-12 07:08:{s:02d} TP{r}] Prefill batch. #new-seq: 2, #new-token: 4096, #cached-token: 512, "
    "token usage: 0.40, #running-req: 35, #queue-req: 1\n",
    "(EngineCore_DP0 pid=150) INFO 02-23 02:23:{s:02d} [scheduler.py:311] Running: 12 reqs, Waiting: 0 reqs, "
    "GPU KV cache usage: 41.2%, Prefix cache hit rate: 63.0%\n",
    "(APIServer pid=1) INFO:     127.0.0.1:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n",
]
INCIDENT = """[2026-03-04 09:11:08 TP{r}] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 3130, in run_scheduler_process
    scheduler = Scheduler(
                ^^^^^^^^^^
  File "/usr/local/lib/python3.11/site-packages/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility
    assert numerator % denominator == 0, "{{}} is not divisible by {{}}".format(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError: 16 is not divisible by 6

"""


def synthetic_log(path: Path, size: int) -> None:
    """Serving-log lines of sglang and vLLM, with an 8-rank incident every ~50,000 lines."""
    import random
    rng = random.Random(0)
    block = "".join(rng.choice(FILLER).format(s=i % 60, r=i % 8) for i in range(50_000))
    block += "".join(INCIDENT.format(r=r) for r in range(8))
    with open(path, "w") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)


def bench_scan(size_mb: int = 1024) -> None:
    from enrich.logs import findings, stream

    path = Path("/tmp/enrich-bench-log.txt")
    if not path.exists() or path.stat().st_size < size_mb * 2**20:
        synthetic_log(path, size_mb * 2**20)
    size = path.stat().st_size / 2**20
    automaton = stream._automaton
    finders = {"enrich explain (logs extra)": automaton, "enrich explain (str.find)": lambda: None}
    if automaton() is None:
        del finders["enrich explain (logs extra)"]     # ahocorasick-rs not installed
    times: dict[str, list[float]] = {"grep -c Traceback": [], **{name: [] for name in finders}}
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["grep", "-c", "Traceback", str(path)], check=True, capture_output=True)
        times["grep -c Traceback"].append(time.perf_counter() - start)
        for name, finder in finders.items():
            stream._automaton = finder
            start = time.perf_counter()
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                found = findings(f)
            times[name].append(time.perf_counter() - start)
    stream._automaton = automaton
    grep = statistics.median(times["grep -c Traceback"])
    print(f"\n## Scanning a {size:.0f} MiB serving log (median of 3; {found[0].count} repeats of 1 finding)")
    for name, runs in times.items():
        t = statistics.median(runs)
        ratio = "" if t == grep else f"   ({t / grep:.1f}x grep's time)"
        print(f"  {name:<32}{size / t:8.1f} MiB/s{ratio}")


SECTIONS = {"wrap": bench_wrap, "match": bench_match, "startup": bench_startup, "scan": bench_scan}

if __name__ == "__main__":
    print(f"# enrich benchmarks: Python {platform.python_version()} on {platform.machine()}, "
          f"{platform.processor() or platform.platform()}")
    for name in sys.argv[1:] or SECTIONS:
        SECTIONS[name]()
