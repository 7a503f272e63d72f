"""Local-context detection benchmark: the one bounded shell script through the agent's backend.

Runs `detect()` on a project (default: this repo) through LocalShellBackend, the bubblewrap
sandbox and FilesystemBackend (no shell) and prints the median wall time and the block size.
Target: <= 150 ms on a repo of this project's size.

    python bench/bench_local_context.py [PROJECT]
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from deepagents.backends import FilesystemBackend, LocalShellBackend

from auger.core.agent.project_facts import detect

TARGET_MS = 150.0


def median_ms(backend: Any, root: str, runs: int = 15) -> tuple[float, int]:
    text = detect(backend, root)  # warm-up (page cache, imports)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        text = detect(backend, root)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), len(text)


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    backends: list[tuple[str, Any]] = [
        ("local shell", LocalShellBackend(root_dir=root, virtual_mode=True, inherit_env=True)),
        ("files only (no shell)", FilesystemBackend(root_dir=root, virtual_mode=True)),
    ]
    if shutil.which("bwrap"):
        from auger.core.backends.sandbox import BubblewrapSandbox

        backends.insert(1, ("bubblewrap sandbox", BubblewrapSandbox(root, timeout=30)))
    print(f"local context detection on {root}")
    worst = 0.0
    for name, backend in backends:
        ms, size = median_ms(backend, str(root))
        worst = max(worst, ms) if name == "local shell" else worst
        print(f"  {name:<24} {ms:7.1f} ms   {size:5d} chars")
    print()
    print(detect(backends[0][1], str(root)))
    verdict = "OK" if worst <= TARGET_MS else "OVER TARGET"
    print(f"\nlocal shell: {worst:.1f} ms (target <= {TARGET_MS:.0f} ms) {verdict}")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
