"""Two threads on one `auger serve`, one in manual mode and one in yolo, both running a turn that
uses the same MCP server: each server request (sampling, a form) is decided by the mode of the
thread whose tool call made it and shown in that thread's stream — in both orders."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv
from serve_harness import Server, StreamingRun, start_server

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
GOOD = {"name": "Ann", "email": "ann@example.com", "age": 42, "role": "dev"}
QUESTION = {"manual": "capital of France?", "yolo": "capital of Peru?"}


def _script(env: AugerEnv, mode: str) -> Path:
    """A turn of the `mode` thread: it waits at its FIFO, then its MCP server samples the model,
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


def _upto(run: StreamingRun, kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    while True:
        event = run.events.get(timeout=30)
        seen.append(event)
        if event["type"] == kind:
            return event


def _tool_result(env: AugerEnv, call_id: str) -> str:
    for request in env.llm.requests:
        for message in request.get("messages", []):
            if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
                content = message["content"]
                return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    raise AssertionError(f"no request carried the result of {call_id}")


def _finish(server: Server, tid: str, mode: str, run: StreamingRun, seen: list[dict[str, Any]]) -> None:
    """Let the `mode` thread's turn go on: its sampling is asked (manual: rejected) or answered
    (yolo), its form is answered, all on its own stream."""
    with server.client() as c:
        if mode == "manual":
            asked = _upto(run, "approval_requested", seen)
            assert asked["name"] == "mcp_sampling" and asked["args"]["server"] == "calc"
            body = {"request_id": asked["request_id"], "decision": "reject"}
            assert c.post(f"/threads/{tid}/approvals", json=body).status_code == 200
        form = _upto(run, "input_requested", seen)
        assert form["message"] == f"Join team {mode}: who are you?"
        body = {"request_id": form["request_id"], "action": "accept", "content": GOOD}
        assert c.post(f"/threads/{tid}/inputs", json=body).status_code == 200, form
    seen += run.rest()
    assert seen[-1]["type"] == "turn_ended" and seen[-1]["reason"] == "done", seen[-3:]


@pytest.mark.parametrize("first", ["manual", "yolo"])
def test_each_threads_server_requests_follow_its_mode_and_reach_its_stream(
    auger_env: AugerEnv, first: str
) -> None:
    (auger_env.home / "mcp.json").write_text(
        json.dumps({"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    auger_env.write_config('[permissions]\nallow = ["calc:*", "execute(read *)"]\n')
    auger_env.llm.add({"when": {"last_user_contains": QUESTION["yolo"]}, "text": "Lima"})  # yolo's sampling
    second = "yolo" if first == "manual" else "manual"
    gates = {mode: _script(auger_env, mode) for mode in (first, second)}
    server = start_server(auger_env, "--mode", "manual")
    try:
        tids = {mode: server.new_thread(mode=mode) for mode in (first, second)}
        runs = {mode: StreamingRun(server, tids[mode], f"go {mode}-thread") for mode in (first, second)}
        seen: dict[str, list[dict[str, Any]]] = {first: [], second: []}
        for mode in (first, second):  # both turns run, each waiting at its FIFO
            _upto(runs[mode], "tool_call_started", seen[mode])
        for mode in (first, second):  # the first one's server requests come while the other's turn runs
            with gates[mode].open("w") as fifo:
                fifo.write("go\n")
            _finish(server, tids[mode], mode, runs[mode], seen[mode])
    finally:
        assert server.stop() == 0
    for mode in (first, second):
        kinds = [e["type"] for e in seen[mode]]
        assert kinds.count("input_requested") == 1, (mode, kinds)
        assert kinds.count("approval_requested") == (mode == "manual"), (mode, kinds)
        assert _tool_result(auger_env, f"form_{mode}").startswith("elicitation accept:")
    assert "The user refused the sampling request" in _tool_result(auger_env, "ask_manual")
    assert _tool_result(auger_env, "ask_yolo") == "the model said: Lima"
    notices = [e["message"] for e in seen["yolo"] if e["type"] == "notice"]
    assert any("used the model" in n for n in notices), notices
    assert not [e for e in seen["manual"] if e["type"] == "notice" and "used the model" in e["message"]]
