"""The user's own `!command`, run where the agent runs: in the project folder, or inside the
sandbox when `[sandbox]` is on (through the backend's `execute`, like the agent's commands).
The output (stdout and stderr together, at most MAX_OUTPUT) goes back with its exit code."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from auger.core.operations import ShellResult

if TYPE_CHECKING:
    from auger.core.runtime import Runtime

MAX_OUTPUT = 16 * 1024


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
        env={**os.environ, "TERM": "dumb"},
        start_new_session=True,
    )
    try:
        raw, _ = await asyncio.wait_for(proc.communicate(), timeout)
        code = proc.returncode if proc.returncode is not None else -1
    except (TimeoutError, asyncio.CancelledError) as exc:
        proc.kill()
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return ShellResult(command, f"(killed after {timeout:g} s)", 124)
    text = raw.decode("utf-8", errors="replace")
    truncated = len(text) > MAX_OUTPUT
    return ShellResult(command, text[-MAX_OUTPUT:] if truncated else text, code, truncated)
