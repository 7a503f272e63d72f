"""When the editor offers `fs`, auger's file tools read and write through it: the agent sees the
unsaved buffer, and the write goes to the editor (which applies it), not around it to the disk.
`[acp] client_fs = false` keeps them on the disk."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp import schema as s
from acp_peer import RecordingClient, spawn

from conftest import AugerEnv


class EditorClient(RecordingClient):
    def __init__(self, buffers: dict[str, str]) -> None:
        super().__init__("allow_once")
        self.buffers = buffers  # path -> unsaved text
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> s.ReadTextFileResponse:
        self.reads.append(path)
        return s.ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
        self.writes.append((path, content))
        self.buffers[path] = content


def _script(ae: AugerEnv) -> None:
    ae.llm.add(
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "/src.py"}}]},
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "args": {"file_path": "/src.py", "old_string": "unsaved", "new_string": "edited"},
                }
            ]
        },
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/out.txt", "content": "new file\n"}}]},
        {"text": "done"},
    )


async def _session(ae: AugerEnv, client: EditorClient) -> None:
    caps = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True, write_text_file=True))
    async with spawn(ae, client) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=caps)
        new = await conn.new_session(cwd=str(ae.project), mcp_servers=[])
        await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        done = await conn.prompt(
            session_id=new.session_id, prompt=[s.TextContentBlock(type="text", text="go")]
        )
    assert done.stop_reason == "end_turn"


async def test_file_tools_go_through_the_editor_when_it_offers_fs(auger_env: AugerEnv) -> None:
    src = auger_env.project / "src.py"
    src.write_text("on disk\n")
    client = EditorClient({str(src): "unsaved buffer\n"})
    _script(auger_env)
    await _session(auger_env, client)
    read_result = auger_env.llm.requests[1]["messages"][-1]
    assert read_result["role"] == "tool" and "unsaved buffer" in str(read_result["content"])
    assert client.writes == [
        (str(src), "edited buffer\n"),
        (str(auger_env.project / "out.txt"), "new file\n"),
    ]
    assert src.read_text() == "on disk\n"  # the editor owns the buffer; it saves when the user does
    assert not (auger_env.project / "out.txt").exists()


async def test_client_fs_off_keeps_the_tools_on_the_disk(auger_env: AugerEnv) -> None:
    auger_env.write_config("[acp]\nclient_fs = false\n")
    src = auger_env.project / "src.py"
    src.write_text("unsaved on disk\n")
    client = EditorClient({})
    _script(auger_env)
    await _session(auger_env, client)
    assert client.reads == [] and client.writes == []
    assert src.read_text() == "edited on disk\n"
    assert (auger_env.project / "out.txt").read_text() == "new file\n"


class TerminalClient(RecordingClient):
    """An editor with terminals: runs each command for real and keeps its output."""

    def __init__(self) -> None:
        super().__init__("allow_once")
        self.created: list[tuple[str, list[str], str | None]] = []
        self.procs: dict[str, Any] = {}
        self.released: list[str] = []

    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, **kw: Any
    ) -> Any:
        import asyncio

        self.created.append((command, list(args or []), kw.get("cwd")))
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=kw.get("cwd"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        tid = f"term-{len(self.created)}"
        self.procs[tid] = (proc, asyncio.ensure_future(proc.communicate()))
        return s.CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        proc, out = self.procs[terminal_id]
        await out
        return s.WaitForTerminalExitResponse(exit_code=proc.returncode)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        proc, out = self.procs[terminal_id]
        text = (await out)[0].decode()
        status = s.TerminalExitStatus(exit_code=proc.returncode)
        return s.TerminalOutputResponse(output=text, truncated=False, exit_status=status)

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.released.append(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.procs[terminal_id][0].kill()


async def test_commands_run_in_the_editors_terminal_when_it_offers_one(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "echo in-the-editor; pwd"}}]},
        {"tool_calls": [{"name": "execute", "args": {"command": "exit 3"}}]},
        {"text": "ran"},
    )
    client = TerminalClient()
    async with spawn(auger_env, client) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=s.ClientCapabilities(terminal=True))
        new = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[s.TextContentBlock(type="text", text="run")])
    assert client.created[0] == ("/bin/sh", ["-c", "echo in-the-editor; pwd"], str(auger_env.project))
    assert client.released == ["term-1", "term-2"]
    shown = [u for u in client.of("tool_call_update") if u.content and u.content[0].type == "terminal"]
    assert [u.content[0].terminal_id for u in shown] == ["term-1", "term-2"]
    first = str(auger_env.llm.requests[1]["messages"][-1]["content"])
    assert "in-the-editor" in first and str(auger_env.project) in first
    assert "[Command succeeded with exit code 0]" in first
    assert "[Command failed with exit code 3]" in str(auger_env.llm.requests[2]["messages"][-1]["content"])
    assert [u.status for u in client.of("tool_call_update") if u.status in ("completed", "failed")] == [
        "completed",
        "failed",
    ]
