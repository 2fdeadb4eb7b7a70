"""The wheel carries the catalog and the integrations, and registers them as entry points."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_patterns_and_integrations(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    str(ROOT), "-w", str(tmp_path)], check=True, capture_output=True)
    [wheel] = tmp_path.glob("enrich-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for pattern_file in (ROOT / "patterns").rglob("*.toml"):
        assert f"enrich/patterns/{pattern_file.relative_to(ROOT / 'patterns')}" in names
    assert "enrich/integrations/sglang.py" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for line in ("sglang = enrich.integrations.sglang:integration", "builtin = enrich.patterns",
                 "enrich = enrich.integrations.sglang:plugin", "[sglang.srt.plugins]", "[enrich.catalogs]"):
        assert line in text.splitlines(), line
