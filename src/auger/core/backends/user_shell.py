"""The user's own `!command`, run where the agent runs: in the project folder, or inside the
sandbox when `[sandbox]` is on (through the backend's `execute`, like the agent's commands).
The output (stdout and stderr together, its last MAX_OUTPUT bytes, read as it comes so memory
stays small) goes back with its exit code; a timeout or a cancel kills the command's process group."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from auger.core.backends.spawn import QUIET_TOOLS, kill_group
from auger.core.backends.spill import Window
from auger.core.operations import ShellResult

if TYPE_CHECKING:
    from auger.core.runtime import Runtime

MAX_OUTPUT = 16 * 1024


async def _read(stream: asyncio.StreamReader, window: Window) -> None:
    while chunk := await stream.read(65536):
        window.add(chunk)


async def run_user_command(command: str, runtime: Runtime) -> ShellResult:
    settings, timeout = runtime.settings, runtime.settings.shell_timeout
    if (settings.data.get("sandbox") or {}).get("enabled"):
        done = await runtime.backend.aexecute(command, timeout=timeout)
        return ShellResult(
            command, done.output, done.exit_code if done.exit_code is not None else -1, done.truncated
        )
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=settings.project_root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "TERM": "dumb", **QUIET_TOOLS},
        start_new_session=True,
    )
    window = Window(0, MAX_OUTPUT)
    try:
        assert proc.stdout is not None
        await asyncio.wait_for(_read(proc.stdout, window), timeout)
        code = await proc.wait()
    except (TimeoutError, asyncio.CancelledError) as exc:
        kill_group(proc)
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return ShellResult(command, f"(killed after {timeout:g} s)", 124)
    return ShellResult(command, window.data.decode("utf-8", errors="replace"), code, window.truncated)
