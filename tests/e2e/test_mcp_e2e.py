"""End-to-end: the scripted model calls an MCP tool (a real FastMCP server over stdio) in a
headless run, and the result reaches the final answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import AugerEnv

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"


def _mcp_file(env: AugerEnv) -> Path:
    path = env.home / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}))
    return path


def test_model_calls_mcp_tool_and_uses_result(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "add", "args": {"a": 20, "b": 22}}]},
        {"text": "The sum is 42."},
    )
    proc = auger_env.run("-n", "add 20 and 22", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert finished and finished[0]["name"] == "add" and "42" in finished[0]["output"]
    first_tools = [t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]]
    assert "add" in first_tools and "echo" in first_tools
    tool_msgs = [m for m in auger_env.llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "42" in str(tool_msgs[-1]["content"])
    assert events[-1]["text"] == "The sum is 42."


def test_mcp_tool_refused_in_manual_headless_unless_read_only(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "echo", "args": {"text": "hello"}}]},
        {"tool_calls": [{"name": "getenv", "args": {"name": "HOME"}}]},
        {"text": "done"},
    )
    proc = auger_env.run("-n", "echo", "--mode", "manual", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = {e["name"]: e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"}
    assert finished["echo"]["status"] == "rejected"
    assert finished["getenv"]["status"] == "success"


def test_no_mcp_flag_starts_nothing(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "hi", "--no-mcp")
    assert proc.returncode == 0, proc.stderr
    names = [t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]]
    assert "add" not in names
