"""Two sessions of one `auger acp`, one in manual mode and one in yolo, both in a turn that uses
the same MCP server: each server request (sampling, a form) is decided by the mode of the session
whose tool call made it and goes to the editor under that session's id — in both orders."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest
from acp import schema as s
from acp_peer import RecordingClient, spawn

from conftest import AugerEnv

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
GOOD = {"name": "Ann", "email": "ann@example.com", "age": 42, "role": "dev"}
QUESTION = {"manual": "capital of France?", "yolo": "capital of Peru?"}


def _script(env: AugerEnv, mode: str) -> Path:
    """A turn of the `mode` session: it waits at its FIFO, then its MCP server samples the model,
    then shows a form. Returns the FIFO."""
    gate = env.project / f"gate-{mode}"
    os.mkfifo(gate)
    when = {"last_user_contains": f"go {mode}-thread"}
    env.llm.add(
        {
            "when": when,
            "tool_calls": [
                {"name": "execute", "id": f"gate_{mode}", "args": {"command": f"read x < {gate.name}"}}
            ],
        },
        {
            "when": when,
            "tool_calls": [
                {"name": "mcp__calc__ask_model", "id": f"ask_{mode}", "args": {"question": QUESTION[mode]}}
            ],
        },
        {
            "when": when,
            "tool_calls": [{"name": "mcp__calc__sign_up", "id": f"form_{mode}", "args": {"team": mode}}],
        },
        {"when": when, "text": f"{mode} done"},
    )
    return gate


def _open(gate: Path) -> None:
    with gate.open("w") as fifo:  # returns once the turn's command reads it
        fifo.write("go\n")


def _tool_result(env: AugerEnv, call_id: str) -> str:
    for request in env.llm.requests:
        for message in request.get("messages", []):
            if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
                content = message["content"]
                return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    raise AssertionError(f"no request carried the result of {call_id}")


@pytest.mark.parametrize("first", ["manual", "yolo"])
async def test_each_sessions_server_requests_follow_its_mode_and_reach_its_session(
    auger_env: AugerEnv, first: str
) -> None:
    (auger_env.home / "mcp.json").write_text(
        json.dumps({"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    auger_env.write_config('[permissions]\nallow = ["calc:*", "execute(read *)"]\n')
    auger_env.llm.add({"when": {"last_user_contains": QUESTION["yolo"]}, "text": "Lima"})  # yolo's sampling
    second = "yolo" if first == "manual" else "manual"
    gates = {mode: _script(auger_env, mode) for mode in (first, second)}
    client = RecordingClient("reject_once")  # the manual session's sampling: refused by the user
    client.form_answers = [s.AcceptElicitationResponse(action="accept", content=GOOD) for _ in range(2)]
    forms = s.ClientCapabilities(elicitation=s.ElicitationCapabilities(form=s.ElicitationFormCapabilities()))
    async with spawn(auger_env, client, "--mode", "manual", unstable=True) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=forms)
        ids = {
            mode: (await conn.new_session(cwd=str(auger_env.project), mcp_servers=[])).session_id
            for mode in (first, second)
        }
        await conn.set_session_mode(session_id=ids["yolo"], mode_id="yolo")
        turns = {}
        for mode in (first, second):  # both turns run, each waiting at its FIFO
            turns[mode] = asyncio.ensure_future(
                conn.prompt(
                    session_id=ids[mode], prompt=[s.TextContentBlock(type="text", text=f"go {mode}-thread")]
                )
            )
            await client.wait_for(lambda u, m=mode: getattr(u, "tool_call_id", None) == f"gate_{m}")
        for mode in (first, second):  # the first one's server requests come while the other's turn runs
            await asyncio.to_thread(_open, gates[mode])
            assert (await asyncio.wait_for(turns[mode], 60)).stop_reason == "end_turn"
    [asked] = client.permissions
    assert asked.session_id == ids["manual"] and "sampling" in str(asked.tool_call.title), asked
    assert {mode.session_id for _, mode in client.forms} == set(ids.values())
    for message, mode in client.forms:
        team = "manual" if mode.session_id == ids["manual"] else "yolo"
        assert message == f"MCP server 'calc' asks: Join team {team}: who are you?"
    for mode in (first, second):
        assert _tool_result(auger_env, f"form_{mode}").startswith("elicitation accept:")
    assert "The user refused the sampling request" in _tool_result(auger_env, "ask_manual")
    assert _tool_result(auger_env, "ask_yolo") == "the model said: Lima"
