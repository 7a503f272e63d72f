"""Another ACP agent as a subagent: `[acp_agents.NAME]` with a second `auger acp` process as the
agent. The task tool delegates to it, its stream arrives as subagent events, its permission
requests go through the parent's rules, mode and approvals; a missing agent is a clear error."""

from __future__ import annotations

from conftest import AUGER, AugerEnv


def _helper(ae: AugerEnv, command: str = AUGER) -> None:
    ae.write_config(
        f'[acp_agents.helper]\ncommand = "{command}"\nargs = ["acp"]\n'
        'description = "Another agent that writes files when asked."\n'
    )


def _script(ae: AugerEnv) -> None:
    ae.llm.add(
        {
            "when": {"last_user_contains": "delegate please"},
            "tool_calls": [
                {"name": "task", "args": {"description": "write helper.txt", "subagent_type": "helper"}}
            ],
        },
        {
            "when": {"last_user_contains": "write helper.txt"},
            "tool_calls": [
                {"name": "write_file", "args": {"file_path": "/helper.txt", "content": "by the helper\n"}}
            ],
        },
        {"when": {"last_user_contains": "write helper.txt"}, "text": "helper wrote it"},
        {"when": {"last_user_contains": "delegate please"}, "text": "The helper did it."},
    )


def test_an_auger_acp_subagent_does_the_task_with_the_parents_approval(auger_env: AugerEnv) -> None:
    _helper(auger_env)
    _script(auger_env)
    proc = auger_env.run(
        "-n", "delegate please", "--mode", "yolo", "--output-format", "stream-json", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    [task] = [e for e in events if e["type"] == "tool_call_started" and e["name"] == "task"]
    inner = [e for e in events if e.get("parent_id") == task["call_id"]]
    assert any(e["type"] == "tool_call_started" and e["name"] == "write_file" for e in inner)
    assert "helper wrote it" in "".join(e["text"] for e in inner if e["type"] == "text_delta")
    [done] = [e for e in events if e["type"] == "tool_call_finished" and e["name"] == "task"]
    assert done["output"] == "helper wrote it"
    assert (auger_env.project / "helper.txt").read_text() == "by the helper\n"
    assert events[-1]["text"] == "The helper did it."


def test_the_subagents_permission_requests_follow_the_parents_approvals(auger_env: AugerEnv) -> None:
    _helper(auger_env)
    _script(auger_env)
    # manual + headless: the task itself is allowed by a rule, the helper's write is refused by the
    # headless policy (nobody to ask), exactly as the parent's own write would be
    auger_env.write_config(
        '[permissions]\nallow = ["task"]\n[acp_agents.helper]\n'
        f'command = "{AUGER}"\nargs = ["acp"]\ndescription = "Another agent that writes files when asked."\n'
    )
    proc = auger_env.run("-n", "delegate please", "--output-format", "stream-json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not (auger_env.project / "helper.txt").exists()
    tool_results = [
        str(m["content"]) for r in auger_env.llm.requests for m in r["messages"] if m["role"] == "tool"
    ]
    assert any("declined" in text for text in tool_results)  # the helper's model was told
    assert "helper wrote it" in tool_results[-1]  # and the parent got the helper's reply


def test_a_missing_acp_agent_is_a_clear_tool_error(auger_env: AugerEnv) -> None:
    _helper(auger_env, command="/nonexistent/agent-cli")
    auger_env.llm.add(
        {
            "tool_calls": [
                {"name": "task", "args": {"description": "write helper.txt", "subagent_type": "helper"}}
            ]
        },
        {"text": "The helper is not installed."},
    )
    proc = auger_env.run(
        "-n", "delegate please", "--mode", "yolo", "--output-format", "stream-json", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    [done] = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished" and e["name"] == "task"]
    assert "cannot run '/nonexistent/agent-cli'" in done["output"]
    assert "No such file" in done["output"]


async def test_editor_to_auger_to_auger_the_editor_approves_the_helpers_write(auger_env: AugerEnv) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from acp import schema as s
    from acp_peer import RecordingClient, spawn, start

    _helper(auger_env)
    _script(auger_env)
    client = RecordingClient("allow_once")
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        prompt = [s.TextContentBlock(type="text", text="delegate please")]
        done = await conn.prompt(session_id=session_id, prompt=prompt)
    assert done.stop_reason == "end_turn"
    asked = [p.tool_call for p in client.permissions]
    assert [a.field_meta["auger"]["tool"] for a in asked] == ["task", "write_file"]
    assert "The helper agent asks to" in asked[1].field_meta["auger"]["reason"]
    started = {u.tool_call_id: u for u in client.of("tool_call")}
    assert started[asked[1].tool_call_id].title == "Write /helper.txt"  # the helper's call, shown first
    assert (auger_env.project / "helper.txt").read_text() == "by the helper\n"
    assert client.text() == "The helper did it."


def test_an_acp_agent_that_crashes_is_a_clear_tool_error(auger_env: AugerEnv) -> None:
    _helper(auger_env, command="false")  # exits at once, before answering initialize
    auger_env.llm.add(
        {
            "tool_calls": [
                {"name": "task", "args": {"description": "write helper.txt", "subagent_type": "helper"}}
            ]
        },
        {"text": "The helper crashed."},
    )
    proc = auger_env.run(
        "-n", "delegate please", "--mode", "yolo", "--output-format", "stream-json", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    [done] = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished" and e["name"] == "task"]
    assert done["output"].startswith(
        "Error: the helper agent (false) did not do the task: it exited with status 1"
    )
