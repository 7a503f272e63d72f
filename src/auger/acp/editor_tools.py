"""The editor's file system and terminal as auger's `ClientFiles` / `ClientTerminal`
(`auger.core.middleware.tools.client_tools`):

* when the client offers `fs.readTextFile` and `fs.writeTextFile` (and `[acp] client_fs` is on),
  read_file / write_file / edit_file on project files go through `fs/read_text_file` and
  `fs/write_text_file` — the agent sees unsaved buffers and the editor applies the writes;
* when it offers `terminal` (and `[acp] client_terminal` is on, and the sandbox is off: the
  editor's terminal is not sandboxed), `execute` runs in an editor terminal, shown in the row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.core.port import CommandResult

if TYPE_CHECKING:
    from acp.interfaces import Client


class EditorFiles:
    def __init__(self, client: Client, session_id: str) -> None:
        self.client, self.session_id = client, session_id

    async def read(self, path: str) -> str:
        response = await self.client.read_text_file(session_id=self.session_id, path=path)
        return str(response.content)

    async def write(self, path: str, content: str) -> None:
        await self.client.write_text_file(session_id=self.session_id, path=path, content=content)


def offers_files(capabilities: dict[str, Any]) -> bool:
    """The client's `initialize` capabilities (wire form) include both fs methods."""
    fs = capabilities.get("fs")
    return isinstance(fs, dict) and bool(fs.get("readTextFile") and fs.get("writeTextFile"))


class EditorTerminal:
    """`execute` in the editor's terminal (`terminal/create`, wait, output, release); the tool
    call's row shows the terminal while it runs."""

    OUTPUT_LIMIT = 1_000_000  # bytes the editor keeps

    def __init__(self, client: Client, session_id: str) -> None:
        self.client, self.session_id = client, session_id

    async def run(self, command: str, cwd: str, call_id: str, timeout: float | None) -> CommandResult:
        import asyncio

        from acp.helpers import tool_terminal_ref, update_tool_call

        sid = self.session_id
        term = await self.client.create_terminal(
            session_id=sid,
            command="/bin/sh",
            args=["-c", command],
            cwd=cwd,
            output_byte_limit=self.OUTPUT_LIMIT,
        )
        tid = term.terminal_id
        try:
            show = update_tool_call(call_id, status="in_progress", content=[tool_terminal_ref(tid)])
            await self.client.session_update(session_id=sid, update=show)
            code: int | None = None
            try:
                async with asyncio.timeout(timeout):
                    code = (
                        await self.client.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
                    ).exit_code
            except TimeoutError:
                await self.client.kill_terminal(session_id=sid, terminal_id=tid)
            out = await self.client.terminal_output(session_id=sid, terminal_id=tid)
            if code is None and out.exit_status is not None and timeout is None:
                code = out.exit_status.exit_code
        finally:
            await self.client.release_terminal(session_id=sid, terminal_id=tid)
        return CommandResult(out.output, code, bool(out.truncated))


def offers_terminal(capabilities: dict[str, Any]) -> bool:
    return bool(capabilities.get("terminal"))
