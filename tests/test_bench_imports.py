"""Every benchmark in bench/ still imports: a name a benchmark takes from src/ that a change
removed fails here, not the next time someone measures (bench_discovery did, for a stop)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_every_benchmark_imports() -> None:
    names = sorted(path.stem for path in BENCH.glob("*.py"))
    assert "bench_discovery" in names and len(names) > 15
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    proc = subprocess.run(
        [sys.executable, "-c", code, *names], cwd=BENCH, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
