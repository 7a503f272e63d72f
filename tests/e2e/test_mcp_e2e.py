"""End-to-end: the scripted model calls an MCP tool (a real FastMCP server over stdio) in a
headless run, and the result reaches the final answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import AugerEnv
from conftest_llm import typed

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
CRASHING = Path(__file__).resolve().parents[1] / "mcp_servers" / "crashing_server.py"


def _mcp_file(env: AugerEnv) -> Path:
    path = env.home / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}))
    return path


def test_model_calls_mcp_tool_and_uses_result(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__add", "args": {"a": 20, "b": 22}}]},
        {"text": "The sum is 42."},
    )
    proc = auger_env.run("-n", "add 20 and 22", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert finished and finished[0]["name"] == "mcp__calc__add" and "42" in finished[0]["output"]
    first_tools = [t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]]
    assert "mcp__calc__add" in first_tools and "mcp__calc__echo" in first_tools
    tool_msgs = [m for m in auger_env.llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "42" in str(tool_msgs[-1]["content"])
    assert events[-1]["text"] == "The sum is 42."


def test_mcp_tool_refused_in_manual_headless_unless_read_only(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__echo", "args": {"text": "hello"}}]},
        {"tool_calls": [{"name": "mcp__calc__getenv", "args": {"name": "HOME"}}]},
        {"text": "done"},
    )
    proc = auger_env.run("-n", "echo", "--mode", "manual", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = {e["name"]: e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"}
    assert finished["mcp__calc__echo"]["status"] == "rejected"
    assert finished["mcp__calc__getenv"]["status"] == "success"


def test_no_mcp_flag_starts_nothing(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "hi", "--no-mcp")
    assert proc.returncode == 0, proc.stderr
    names = [t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]]
    assert not [n for n in names if n.startswith("mcp__")]


def test_a_server_crashing_mid_turn_renames_nothing(auger_env: AugerEnv) -> None:
    """Two real servers share a tool name (`pid`); one crashes during the turn. The survivor's
    tool keeps its name, so the model's next call to it works (it used to be renamed mid-turn)."""
    servers = {
        "fragile": {"command": sys.executable, "args": [str(CRASHING)]},
        "steady": {"command": sys.executable, "args": [str(SERVER)]},
    }
    (auger_env.home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__steady__pid", "args": {}}]},
        {"tool_calls": [{"name": "mcp__fragile__crash", "args": {}}]},
        {"tool_calls": [{"name": "mcp__steady__pid", "args": {}}]},
        {"text": "done"},
    )
    proc = auger_env.run("-n", "go", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert [(e["name"], e["status"]) for e in finished] == [
        ("mcp__steady__pid", "success"),
        ("mcp__fragile__crash", "error"),
        ("mcp__steady__pid", "success"),
    ]
    assert finished[0]["output"] == finished[2]["output"]  # the same live server answered
    offered = [{t["function"]["name"] for t in r["tools"]} for r in auger_env.llm.requests]
    assert all("mcp__steady__pid" in names for names in offered)
    assert "mcp__fragile__pid" in offered[0] and "mcp__fragile__pid" not in offered[2]


def test_prompts_resources_and_progress_headless(auger_env: AugerEnv) -> None:
    """`auger -n "/mcp__calc__review 42 ..."` sends the server's prompt; `@calc:docs://guide`
    attaches the resource; a tool's progress notifications are `tool_progress` events."""
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__steps", "args": {"count": 2}}]},
        {"text": "reviewed"},
    )
    proc = auger_env.run(
        "-n",
        "/mcp__calc__review 42 see @calc:docs://guide",
        "--mode",
        "yolo",
        "--output-format",
        "stream-json",
    )
    assert proc.returncode == 0, proc.stderr
    user = typed([m for m in auger_env.llm.requests[0]["messages"] if m["role"] == "user"][-1]["content"])
    assert user.startswith("Review pull request 42, looking at see @calc:docs://guide.")
    assert "Use tabs." in user
    events = auger_env.events(proc)
    progress = [e for e in events if e["type"] == "tool_progress"]
    started = next(e for e in events if e["type"] == "tool_call_started")
    assert [(e["call_id"], e["progress"], e["total"]) for e in progress] == [
        (started["call_id"], 1, 2),
        (started["call_id"], 2, 2),
    ]


def test_a_missing_prompt_argument_is_one_line_and_exit_1(auger_env: AugerEnv) -> None:
    _mcp_file(auger_env)
    proc = auger_env.run("-n", "/mcp__calc__review")
    assert proc.returncode != 0
    assert "auger: /mcp__calc__review needs pr. Usage: /mcp__calc__review pr [focus]" in proc.stderr
    assert "Traceback" not in proc.stderr and not auger_env.llm.requests


EVERYTHING = (
    Path(__file__).resolve().parents[1] / "mcp_servers" / "node_modules" / ".bin" / "mcp-server-everything"
)


def _everything(env: AugerEnv) -> None:
    assert EVERYTHING.exists(), "npm server missing: run scripts/test.sh (npm ci --prefix tests/mcp_servers)"
    spec = {"mcpServers": {"ev": {"command": str(EVERYTHING), "args": ["stdio"]}}}
    (env.home / "mcp.json").write_text(json.dumps(spec))


def test_sampling_is_answered_by_the_model_in_yolo_and_refused_otherwise(auger_env: AugerEnv) -> None:
    """The reference npm server asks for a model reply during its tool call: in yolo the scripted
    model answers it (a request of its own, with the server's system prompt); in auto-edit mode
    it is refused with a line saying how to allow it. Elicitation is declined headless."""
    _everything(auger_env)
    sample = {"name": "mcp__ev__trigger-sampling-request", "args": {"prompt": "say hi"}}
    auger_env.llm.add({"tool_calls": [sample]}, {"text": "sampled hello"}, {"text": "done"})
    proc = auger_env.run("-n", "go", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    [finished] = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert finished["status"] == "success" and "sampled hello" in finished["output"]
    asked = auger_env.llm.requests[1]["messages"]
    assert asked[0] == {"role": "system", "content": "You are a helpful test server."}
    assert "say hi" in asked[-1]["content"] and "tools" not in auger_env.llm.requests[1]

    elicit = {"name": "mcp__ev__trigger-elicitation-request", "args": {}}
    auger_env.llm.add({"tool_calls": [sample]}, {"tool_calls": [elicit]}, {"text": "done"})
    auger_env.write_config('[permissions]\nallow = ["ev:*"]\n')  # the tool runs; its sampling does not
    proc = auger_env.run("-n", "go", "--mode", "auto-edit", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    outputs = [e["output"] for e in events if e["type"] == "tool_call_finished"]
    assert len(auger_env.llm.requests) == 3 + 3  # no sampling request reached the model this time
    assert "refused in 'auto-edit' mode" in outputs[0] and "--mode yolo" in outputs[0]
    assert '"action": "decline"' in outputs[1]


def test_a_servers_form_is_declined_headless_and_the_turn_goes_on(auger_env: AugerEnv) -> None:
    """Headless there is nobody to fill in a form (in yolo too): the server hears `decline`, the
    tool's result says so, the model goes on, and stream-json carries the notice (no input_requested)."""
    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__sign_up", "args": {"team": "core"}}]},
        {"text": "They declined."},
    )
    proc = auger_env.run("-n", "sign me up", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    [finished] = [e for e in events if e["type"] == "tool_call_finished"]
    assert finished["status"] == "success" and finished["output"] == "elicitation decline: null"
    assert "elicitation decline: null" in str(auger_env.llm.requests[1]["messages"][-1]["content"])
    assert not [e for e in events if e["type"] == "input_requested"]
    [notice] = [e["message"] for e in events if e["type"] == "notice" and "asked for input" in e["message"]]
    assert "MCP server 'calc'" in notice and "Join team core" in notice and "declined" in notice
    assert events[-1] == {**events[-1], "type": "turn_ended", "reason": "done", "text": "They declined."}


def test_a_servers_form_is_declined_by_a_headless_connect_client(auger_env: AugerEnv) -> None:
    """`auger --connect URL -n`: the server's MCP server asks for a form, the server streams it
    (input_requested), and the headless client — nobody to ask — declines it over the port."""
    from serve_harness import start_server

    _mcp_file(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__sign_up", "args": {"team": "core"}}]},
        {"text": "They declined."},
    )
    server = start_server(auger_env)
    try:
        proc = auger_env.run(
            "--connect", server.url, "--token", server.token, "-n", "sign me up", "--mode", "yolo",
            "--output-format", "stream-json",
        )  # fmt: skip
    finally:
        assert server.stop() == 0
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    [finished] = [e for e in events if e["type"] == "tool_call_finished"]
    assert finished["output"] == "elicitation decline: null"
    assert not [e for e in events if e["type"] == "input_requested"]
    assert events[-1]["type"] == "turn_ended" and events[-1]["text"] == "They declined."
