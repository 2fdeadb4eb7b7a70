"""The demo: sglang 0.5.23's four founding errors raised by its own code on this CPU, each in a
spawned process with ``enrich.install()``, and what enrich attached (note, span event, counter).

    scripts/demo            (sets up .venv, then runs this file)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from founding import FOUNDING, run_isolated  # noqa: E402


def main(names: tuple[str, ...] = FOUNDING) -> int:
    try:
        import sglang  # noqa: F401
    except ImportError:
        print("the demo needs sglang and its CPU dependencies: pip install '.[sglang-cpu]' "
              "&& pip install --no-deps sglang==0.5.23", file=sys.stderr)
        return 1
    print("Raising sglang 0.5.23's founding errors from its own code, each in a spawned process with "
          "enrich.install() (tiny random models, CPU)...\n")
    for name, (exc, text, telemetry) in zip(names, run_isolated(names)):
        print(f"=== {name}: the end of the traceback, as sglang would log it")
        print("\n".join(text.rstrip().splitlines()[-8:]))
        if telemetry.get("span event"):
            print("--- the OpenTelemetry span event it produced (enrich.* and error.type attributes)")
            print(json.dumps(telemetry["span event"], indent=2))
            for metric, attributes, value in telemetry.get("counter", []):
                print(f"--- counter {metric} {json.dumps(attributes)} = {value}")
        else:
            record = getattr(exc, "_enrich", None) or {}
            print("--- the structured record on the exception (install opentelemetry-sdk to see telemetry)")
            print(json.dumps({k: record.get(k) for k in ("id", "summary", "fixes", "values", "site")}, indent=2))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(tuple(sys.argv[1:]) or FOUNDING))
