"""The editor's file system as auger's `ClientFiles`: when the client offers `fs.readTextFile`
and `fs.writeTextFile` (and `[acp] client_fs` is on), read_file / write_file / edit_file on
project files go through `fs/read_text_file` and `fs/write_text_file` — the agent sees unsaved
buffers and the editor applies the writes (`auger.core.middleware.client_files`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
