"""The user's `!command`: a gigabyte of output keeps memory small and returns the end of it.
The peak is this process's own (VmHWM): ru_maxrss carries the parent's peak over a vfork+exec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import asyncio, re, sys
from pathlib import Path
from types import SimpleNamespace
from auger.core.backends.user_shell import run_user_command
runtime = SimpleNamespace(settings=SimpleNamespace(shell_timeout=60, project_root=sys.argv[1], data={}))
done = asyncio.run(run_user_command("head -c 1000000000 /dev/zero; echo end", runtime))
peak = re.search(r"VmHWM:\\s+(\\d+)", Path("/proc/self/status").read_text())[1]
print(peak, done.truncated, done.exit_code, len(done.output))
print(done.output[-4:], end="")
"""


def test_a_gigabyte_of_output_keeps_memory_small_and_returns_its_end(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    numbers, tail = out.stdout.split("\n", 1)
    peak_kb, truncated, code, length = numbers.split()
    assert int(peak_kb) < 200 * 1024, f"peaked at {peak_kb} kB (gigabytes on main)"
    assert (truncated, code, int(length)) == ("True", "0", 16 * 1024)
    assert tail == "end\n"
