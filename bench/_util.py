"""Small helpers shared by the benchmarks: run a command N times, report median wall + peak RSS."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence


def measure(
    cmd: Sequence[str],
    *,
    runs: int = 7,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stdin: str = "",
) -> tuple[float, float]:
    """Median wall seconds and median peak RSS (MB) of `cmd` over `runs` runs (after one warm-up)."""
    walls: list[float] = []
    rss: list[float] = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        assert proc.stdin is not None
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        err = proc.stderr.read().decode() if proc.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {err}")
        if i:  # the first run warms the page cache
            walls.append(wall)
            rss.append(usage.ru_maxrss / 1024)
    return statistics.median(walls), statistics.median(rss)


def row(name: str, wall: float, rss: float, note: str = "") -> str:
    return f"{name:<38} {wall * 1000:8.1f} ms {rss:8.1f} MB  {note}"
