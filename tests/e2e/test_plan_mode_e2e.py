"""Plan mode end to end: the installed `auger -n --mode plan` against the scripted server — the
model is offered read-only tools only, writes and commands it calls anyway are refused by the
permission engine (nothing changes on disk), and a presented plan is printed and ends the run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")
PLAN = "# Plan\n\n1. Add `greet()` to `/hello.py`.\n2. Test it with `pytest`."


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def system_text(request: dict[str, Any]) -> str:
    [system] = [m for m in request["messages"] if m["role"] == "system"]
    content = system["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_plan_mode_offers_read_only_tools_and_refuses_writes_and_commands(auger_env: AugerEnv) -> None:
    (auger_env.project / "notes.txt").write_text("keep me\n")
    auger_env.llm.add(
        {
            "tool_calls": [
                call("write_file", file_path="/new.py", content="x = 1\n"),
                call("edit_file", file_path="/notes.txt", old_string="keep", new_string="lost"),
                call("execute", command="touch ran.txt"),
                call("read_file", file_path="/notes.txt"),
            ]
        },
        {"text": "I could only read."},
    )
    proc = auger_env.run("-n", "plan the change", *STREAM, "--mode", "yolo", "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    first = auger_env.llm.requests[0]
    tools = offered(first)
    assert {"read_file", "ls", "glob", "grep", "write_todos", "present_plan"} <= tools
    assert not tools & {"write_file", "edit_file", "execute", "delete"}, tools
    assert "## Plan mode" in system_text(first)
    assert not (auger_env.project / "new.py").exists()
    assert not (auger_env.project / "ran.txt").exists()
    assert (auger_env.project / "notes.txt").read_text() == "keep me\n"
    done = {e["name"]: e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"}
    for name in ("write_file", "edit_file", "execute"):
        assert done[name]["status"] == "rejected" and "plan mode" in done[name]["output"], done[name]
    assert done["read_file"]["status"] == "success" and "keep me" in done["read_file"]["output"]
    assert "Refused write_file /new.py: plan mode" in proc.stderr


def test_headless_plan_prints_the_plan_and_ends_the_run(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"tool_calls": [call("present_plan", plan=PLAN)]}, {"text": "never asked for"})
    before = sorted(p.name for p in auger_env.project.iterdir())
    proc = auger_env.run("-n", "plan a greet function", "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    assert PLAN in proc.stdout
    assert len(auger_env.llm.requests) == 1  # the plan ends the turn: no model call after it
    assert sorted(p.name for p in auger_env.project.iterdir()) == before


def test_stream_json_carries_the_plan_as_an_event(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"tool_calls": [call("present_plan", plan=PLAN)]})
    proc = auger_env.run("-n", "plan it", *STREAM, "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    [started] = [e for e in events if e["type"] == "tool_call_started" and e["name"] == "present_plan"]
    assert started["args"]["plan"] == PLAN
    assert events[-1]["type"] == "turn_ended" and events[-1]["reason"] == "done"
    assert not [e for e in events if e["type"] == "mode_changed"]


def test_present_plan_is_not_offered_outside_plan_mode(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "hi"})
    proc = auger_env.run("-n", "hello", "--mode", "manual")
    assert proc.returncode == 0, proc.stderr
    tools = offered(auger_env.llm.requests[0])
    assert "present_plan" not in tools and "write_file" in tools
    assert "## Plan mode" not in system_text(auger_env.llm.requests[0])


def test_plan_mode_offers_only_read_only_mcp_tools_and_refuses_the_others(auger_env: AugerEnv) -> None:
    server = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
    servers = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(server)]}}}
    (auger_env.home / "mcp.json").write_text(json.dumps(servers))
    auger_env.llm.add(
        {
            "tool_calls": [
                call("mcp__calc__echo", text="hello"),  # no readOnlyHint: not read-only
                {"name": "mcp__calc__getenv", "args": {"name": "HOME"}},  # readOnlyHint: true
            ]
        },
        {"text": "done"},
    )
    proc = auger_env.run("-n", "look around", *STREAM, "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    tools = offered(auger_env.llm.requests[0])
    assert {"mcp__calc__getenv", "mcp__calc__pid"} <= tools
    assert not tools & {"mcp__calc__echo", "mcp__calc__add", "mcp__calc__slow"}, tools
    done = {e["name"]: e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"}
    assert (
        done["mcp__calc__echo"]["status"] == "rejected" and "plan mode" in done["mcp__calc__echo"]["output"]
    )
    assert done["mcp__calc__getenv"]["status"] == "success", done["mcp__calc__getenv"]


def test_a_subagent_in_plan_mode_reads_but_cannot_write(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"tool_calls": [call("task", description="write x.py", subagent_type="general-purpose")]},
        {"tool_calls": [call("write_file", file_path="/x.py", content="x = 1\n")]},  # the subagent
        {"text": "the subagent could not write"},  # the subagent's answer
        {"text": "ok"},  # the main agent
    )
    proc = auger_env.run("-n", "delegate", *STREAM, "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    assert not (auger_env.project / "x.py").exists()
    sub = auger_env.llm.requests[1]
    assert "read_file" in offered(sub) and not offered(sub) & {"write_file", "execute", "present_plan"}
    [write] = [
        e for e in auger_env.events(proc) if e["type"] == "tool_call_finished" and e["name"] == "write_file"
    ]
    assert write["status"] == "rejected" and write["parent_id"]


def test_an_acp_subagent_is_not_started_in_plan_mode(auger_env: AugerEnv) -> None:
    marker = auger_env.project.parent / "started"
    script = auger_env.project.parent / "agent.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    config = auger_env.home / "config.toml"
    config.write_text(
        config.read_text() + f'[acp_agents.other]\ncommand = "{script}"\ndescription = "Another agent."\n'
    )
    auger_env.llm.add(
        {"tool_calls": [call("task", description="look", subagent_type="other")]}, {"text": "ok"}
    )
    proc = auger_env.run("-n", "delegate", *STREAM, "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    [task] = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished" and e["name"] == "task"]
    assert "not used in plan mode" in task["output"]
    assert not marker.exists()
