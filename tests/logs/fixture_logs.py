"""Every recorded log the reader is tested on: the project's own logs, then the corpus of pastes."""

from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures"
LOGS = sorted((FIXTURES / "logs").glob("*.log")) + sorted((FIXTURES / "corpus").glob("*/*.log"))
IDS = [f"{p.parent.name}/{p.name}" for p in LOGS]
