"""LocalShell: deepagents' `LocalShellBackend` whose shell commands die whole when they time out
or the turn is cancelled.

The SDK's backend runs `subprocess.run(..., shell=True, timeout=...)`, which on a timeout kills
the shell but leaves what it started (`sleep 100; echo x`, `npm run dev &`) running. Here each
command gets its own process group and the whole group is killed; the model reads the same
"Error: Command timed out after N seconds" the SDK writes. Output formatting is the SDK's.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess

from deepagents.backends import LocalShellBackend
from deepagents.backends.protocol import ExecuteResponse

from auger.core.backends.spawn import kill_group, started


class LocalShell(LocalShellBackend):
    def _spawn(self, command: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=self._env,
            cwd=str(self.cwd),
            start_new_session=True,
        )

    def _limit(self, timeout: int | None) -> int:
        limit = timeout if timeout is not None else self._default_timeout
        if limit <= 0:
            raise ValueError(f"timeout must be positive, got {limit}")
        return int(limit)

    def _finish(self, proc: subprocess.Popen[str], limit: int, custom: bool) -> ExecuteResponse:
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=5)  # a process that left the group may keep the pipes open
            hint = (
                " (custom timeout). The command may be stuck or require more time."
                if custom
                else ". For long-running commands, re-run using the timeout parameter."
            )
            message = f"Error: Command timed out after {limit} seconds{hint}"
            return ExecuteResponse(output=message, exit_code=124)
        return self._format(out or "", err or "", proc.returncode)

    def _format(self, out: str, err: str, code: int) -> ExecuteResponse:
        parts = [out] if out else []
        if err:
            parts.extend(f"[stderr] {line}" for line in err.strip().split("\n"))
        output = "\n".join(parts) if parts else "<no output>"
        truncated = len(output.encode("utf-8")) > self._max_output_bytes
        if truncated:
            output = output.encode("utf-8")[: self._max_output_bytes].decode("utf-8", errors="ignore")
            output += f"\n\n... Output truncated at {self._max_output_bytes} bytes."
        if code != 0:
            output = f"{output.rstrip()}\n\nExit code: {code}"
        return ExecuteResponse(output=output, exit_code=code, truncated=truncated)

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if not command or not isinstance(command, str):
            return super().execute(command, timeout=timeout)
        limit = self._limit(timeout)
        try:
            proc = self._spawn(command)
        except OSError as exc:
            return ExecuteResponse(output=f"Error executing command: {exc}", exit_code=1)
        return self._finish(proc, limit, timeout is not None)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if not command or not isinstance(command, str):
            return await super().aexecute(command, timeout=timeout)
        limit = self._limit(timeout)
        try:
            proc = await started(lambda: self._spawn(command), kill_group)
        except OSError as exc:
            return ExecuteResponse(output=f"Error executing command: {exc}", exit_code=1)
        try:
            return await asyncio.to_thread(self._finish, proc, limit, timeout is not None)
        except asyncio.CancelledError:
            kill_group(proc)  # a cancelled turn stops the command; the reader thread then sees EOF
            raise
