"""An MCP server's sampling request (`sampling/createMessage`, the FastMCP test server's
`ask_model` tool) asks like a tool call; "always allow, saved" is read back by a new session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from auger.core import events as ev
from auger.core.mcp.manager import start_mcp
from auger.settings import load_settings
from conftest import AugerEnv
from session_helpers import drive, open_session

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
ASK = {"tool_calls": [{"name": "mcp__calc__ask_model", "args": {"question": "capital of France?"}}]}


async def _sampling_turn(env: AugerEnv, answers: list[ev.ApprovalDecision]) -> list[ev.Event]:
    """One turn in a new session (a Runtime and MCP servers of its own) whose tool samples."""
    env.llm.add(
        ASK, {"when": {"last_user_contains": "capital of France?"}, "text": "Paris"}, {"text": "done"}
    )
    settings = load_settings(cwd=env.project, env=env.env, flags={"mode": "manual"})
    session = await open_session(env, "manual", mcp=await start_mcp(settings))
    try:
        return await drive(session, "ask it", answers)
    finally:
        await session.aclose()


async def test_sampling_allowed_always_and_saved_is_not_asked_again_in_a_new_session(
    auger_env: AugerEnv,
) -> None:
    spec = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}
    (auger_env.home / "mcp.json").write_text(json.dumps(spec))
    auger_env.write_config('[permissions]\nallow = ["calc:*"]\n')  # the tool runs; its sampling asks
    always = ev.ApprovalDecision("approve_always", persist="user")

    first = await _sampling_turn(auger_env, [always])
    [asked] = [e for e in first if isinstance(e, ev.ApprovalRequested)]
    assert asked.name == "mcp_sampling" and asked.args["server"] == "calc"
    assert '"mcp_sampling"' in (auger_env.home / "config.toml").read_text()

    second = await _sampling_turn(auger_env, [])  # an approval here would find no answer: IndexError
    assert [e for e in second if isinstance(e, ev.ApprovalRequested)] == []
    [done] = [e for e in second if isinstance(e, ev.ToolCallFinished)]
    assert "Paris" in done.output, done
