"""LocalShell: a timed-out or cancelled command takes everything it started down with it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

from auger.core.backends.local_shell import LocalShell


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:  # reaped between the two checks: gone
        return False


def _wait_gone(pid: int, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_timeout_kills_the_whole_group_and_says_so(tmp_path: Path) -> None:
    shell = LocalShell(root_dir=tmp_path, virtual_mode=True, inherit_env=True, timeout=1)
    start = time.monotonic()
    result = shell.execute("sleep 60 & echo $! > child.pid; sleep 60; echo never")
    assert time.monotonic() - start < 10
    assert result.exit_code == 124
    assert result.output.startswith("Error: Command timed out after 1 seconds")
    assert _wait_gone(int((tmp_path / "child.pid").read_text()))


def test_output_is_stdout_and_stderr_in_the_order_printed(tmp_path: Path) -> None:
    shell = LocalShell(root_dir=tmp_path, virtual_mode=True, inherit_env=True, timeout=10)
    result = shell.execute("echo out; echo err >&2; echo out2; exit 3")
    assert result.output == "out\nerr\nout2\n\nExit code: 3"
    assert shell.execute("true").output == "<no output>"


async def test_cancelled_command_is_killed(tmp_path: Path) -> None:
    shell = LocalShell(root_dir=tmp_path, virtual_mode=True, inherit_env=True, timeout=60)
    task = asyncio.create_task(shell.aexecute("echo $$ > sh.pid; sleep 60"))
    pid_file = tmp_path / "sh.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert _wait_gone(int(pid_file.read_text()))


def test_output_over_the_line_limit_keeps_both_ends_and_saves_the_whole(tmp_path: Path) -> None:
    from auger.core.backends.spill import SpillTo

    spill = SpillTo(tmp_path / "spill", "/~artifacts/command_output/")
    shell = LocalShell(root_dir=tmp_path, virtual_mode=True, timeout=10, lines=10, spill_to=spill)
    head, cut, tail = shell.execute("seq 1 100").output.split("\n\n")
    assert head == "1\n2\n3\n4\n5" and tail == "96\n97\n98\n99\n100\n"
    [saved] = (tmp_path / "spill").iterdir()
    where = f"/~artifacts/command_output/{saved.name}"
    assert cut == f"... [266 bytes cut; full output (292 bytes) at {where} (read_file or grep it)] ..."
    assert saved.read_text() == "".join(f"{n}\n" for n in range(1, 101))
    assert shell.execute("seq 1 10").output == "".join(
        f"{n}\n" for n in range(1, 11)
    )  # within the limit: all
    assert len(list((tmp_path / "spill").iterdir())) == 1
