"""`!command`: run a shell command for the user, show its output, and keep it for the next prompt."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT = 16 * 1024


@dataclass(frozen=True)
class ShellResult:
    command: str
    output: str
    exit_code: int
    truncated: bool = False

    def as_context(self) -> str:
        """How the run is given to the agent with the next prompt."""
        note = " (output truncated)" if self.truncated else ""
        return (
            f"I ran `{self.command}` in the shell (exit code {self.exit_code}){note}:\n"
            f"```\n{self.output.rstrip()}\n```"
        )


async def run_shell(command: str, cwd: Path, timeout: float = 120) -> ShellResult:
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
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
