"""LocalShell: deepagents' `LocalShellBackend` with bounded output and commands that die whole.

The SDK's backend runs `subprocess.run(..., shell=True, timeout=...)`: it holds all the output
in memory (`yes` grows it by gigabytes) and on a timeout kills the shell but leaves what it
started (`sleep 100; echo x`, `npm run dev &`) running. Here each command gets its own process
group, killed whole on a timeout or a cancelled turn, and its output (stderr merged) goes
through `auger.core.backends.spill`: head and tail kept, the rest in a spill file.
File tools: `auger.core.backends.project_files` (paged reads, a deleted project refused).
"""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

from deepagents.backends import LocalShellBackend
from deepagents.backends.protocol import ExecuteResponse

from auger.core.backends.project_files import ProjectFiles
from auger.core.backends.spawn import QUIET_TOOLS, kill_group, started
from auger.core.backends.spill import SpillTo, Window, collect, response


class LocalShell(ProjectFiles, LocalShellBackend):
    def __init__(self, *, spill_to: SpillTo | None = None, lines: int | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self._env = {**self._env, **QUIET_TOOLS}  # `git commit` without -m fails fast, no pager waits
        self.spill_to, self.lines = spill_to, lines

    def _spawn(self, command: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=self._env,
            cwd=str(self.cwd),
            start_new_session=True,
        )

    def _start(self, command: str) -> subprocess.Popen[bytes]:
        self._resolve_path("/")  # FileNotFoundError once the project folder is gone
        return self._spawn(command)

    spawn_command = _start  # a background command (auger.core.backends.jobs)

    def _limit(self, timeout: int | None) -> int:
        limit = timeout if timeout is not None else self._default_timeout
        if limit <= 0:
            raise ValueError(f"timeout must be positive, got {limit}")
        return int(limit)

    def _finish(self, proc: subprocess.Popen[bytes], limit: int) -> ExecuteResponse:
        half = self._max_output_bytes // 2
        window = Window(self._max_output_bytes - half, half, self.spill_to, self.lines)
        return response(collect(proc, limit, window), limit, "<no output>")

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if not command or not isinstance(command, str):
            return super().execute(command, timeout=timeout)
        limit = self._limit(timeout)
        try:
            proc = self._start(command)
        except OSError as exc:
            return ExecuteResponse(output=f"Error executing command: {exc}", exit_code=1)
        return self._finish(proc, limit)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if not command or not isinstance(command, str):
            return await super().aexecute(command, timeout=timeout)
        limit = self._limit(timeout)
        try:
            proc = await started(lambda: self._start(command), kill_group)
        except OSError as exc:
            return ExecuteResponse(output=f"Error executing command: {exc}", exit_code=1)
        try:
            return await asyncio.to_thread(self._finish, proc, limit)
        except asyncio.CancelledError:
            kill_group(proc)  # a cancelled turn stops the command; the reader thread then sees EOF
            raise
