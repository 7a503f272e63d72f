"""Permission rules, "always allow" rules, hooks and redaction through the Session, in-process
against the scripted server."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from auger.core import events as ev
from auger.core.port import TurnOptions
from auger.core.session.session import Session
from auger.settings import load_settings
from conftest import AugerEnv
from session_helpers import drive, open_session


def call(name: str, **args: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "args": args}]}


def calls(*items: tuple[str, dict[str, object]]) -> dict[str, object]:
    return {"tool_calls": [{"name": n, "args": a} for n, a in items]}


def asks(seen: list[ev.Event]) -> list[ev.ApprovalRequested]:
    return [e for e in seen if isinstance(e, ev.ApprovalRequested)]


def finished(seen: list[ev.Event]) -> list[ev.ToolCallFinished]:
    return [e for e in seen if isinstance(e, ev.ToolCallFinished)]


@pytest.fixture
def project_cwd(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    # a real repository: `git status` in these tests must succeed (a failing command is an "error")
    subprocess.run(["git", "init", "-q", str(auger_env.project)], check=True, env=auger_env.env)
    return auger_env.project


def project_config(env: AugerEnv, text: str) -> None:
    (env.project / ".auger").mkdir(exist_ok=True)
    (env.project / ".auger" / "config.toml").write_text(text)


async def test_always_allow_grants_the_suggested_rule_not_the_whole_tool(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    auger_env.llm.add(
        call("execute", command="git status"), {"text": "1"},
        call("execute", command="timeout 5 git status --short"), {"text": "2"},
        call("execute", command="echo other"), {"text": "3"},
    )  # fmt: skip
    session = await open_session(auger_env)
    try:
        first = await drive(session, "a", [ev.ApprovalDecision("approve_always")])
        second = await drive(session, "b", [])
        third = await drive(session, "c", [ev.ApprovalDecision("approve")])
    finally:
        await session.aclose()
    [request] = asks(first)
    assert request.suggested_rule == "execute(git status *)"
    assert "mode 'manual' asks before execute" in request.description
    assert session.grants == {"execute(git status *)"}
    assert asks(second) == [] and finished(second)[0].status == "success"
    assert [a.args["command"] for a in asks(third)] == ["echo other"]


async def test_always_allow_mid_batch_keeps_the_batch_consistent(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    """One model message, three gated calls: "always allow" on the first auto-approves the
    second (same rule), the third is rejected; resuming must not trip HITL's decision count."""
    auger_env.llm.add(
        calls(
            ("execute", {"command": "git status"}),
            ("execute", {"command": "git status -s"}),
            ("write_file", {"file_path": "/a.txt", "content": "A"}),
        ),
        {"text": "done"},
    )
    session = await open_session(auger_env)
    try:
        seen = await drive(
            session, "go", [ev.ApprovalDecision("approve_always"), ev.ApprovalDecision("reject", "no")]
        )
    finally:
        await session.aclose()
    assert [a.name for a in asks(seen)] == ["execute", "write_file"]
    assert [e.status for e in finished(seen) if e.name == "execute"] == ["success", "success"]
    assert [e.status for e in finished(seen) if e.name == "write_file"] == ["rejected"]
    assert not (project_cwd / "a.txt").exists()
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].reason == "done"


async def test_always_allow_can_be_saved_to_the_project(auger_env: AugerEnv, project_cwd: Path) -> None:
    auger_env.llm.add(
        call("edit_file", file_path="/src/m.py", old_string="a", new_string="b"), {"text": "ok"}
    )
    (project_cwd / "src").mkdir()
    (project_cwd / "src" / "m.py").write_text("a\n")
    session = await open_session(auger_env)
    try:
        seen = await drive(session, "edit", [ev.ApprovalDecision("approve_always", persist="project")])
    finally:
        await session.aclose()
    saved = tomllib.loads((project_cwd / ".auger" / "config.toml").read_text())
    assert saved["permissions"]["allow"] == ["edit_file(src/**)"]
    assert any(isinstance(e, ev.Notice) and "edit_file(src/**)" in e.message for e in seen)
    assert (project_cwd / "src" / "m.py").read_text() == "b\n"


async def test_deny_rule_refuses_names_the_rule_and_tells_the_user(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    project_config(auger_env, '[permissions]\ndeny = ["execute(rm -rf *)"]\nallow = ["execute"]\n')
    (project_cwd / "build").mkdir()
    auger_env.llm.add(call("execute", command="cd . && rm -rf build"), {"text": "could not"})
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, "clean", [])
    finally:
        await session.aclose()
    assert (project_cwd / "build").is_dir()
    [done] = finished(seen)
    assert done.status == "rejected" and 'deny rule "execute(rm -rf *)"' in done.output
    notices = [e.message for e in seen if isinstance(e, ev.Notice)]
    assert any("execute(rm -rf *)" in n for n in notices)
    tool_msg = next(m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool")
    assert 'deny rule "execute(rm -rf *)"' in str(tool_msg["content"])


async def test_deny_rules_apply_inside_subagents(auger_env: AugerEnv, project_cwd: Path) -> None:
    project_config(auger_env, '[permissions]\ndeny = ["execute(rm *)"]\n')
    (project_cwd / "keep.txt").write_text("x")
    auger_env.llm.add(
        call("task", subagent_type="general-purpose", description="delete keep.txt"),
        call("execute", command="rm keep.txt"),
        {"text": "subagent: refused"},
        {"text": "main: done"},
    )
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, "go", [])
    finally:
        await session.aclose()
    assert (project_cwd / "keep.txt").exists()
    inner = [e for e in finished(seen) if e.name == "execute"]
    assert inner and inner[0].status == "rejected" and inner[0].parent_id


async def test_ask_rule_asks_even_in_yolo_and_says_why(auger_env: AugerEnv, project_cwd: Path) -> None:
    project_config(auger_env, '[permissions]\nask = ["execute(git push *)"]\n')
    auger_env.llm.add(call("execute", command="git push origin main"), {"text": "ok"})
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, "push", [ev.ApprovalDecision("reject", "not now")])
    finally:
        await session.aclose()
    [request] = asks(seen)
    assert 'ask rule "execute(git push *)"' in request.description


def hooks_file(env: AugerEnv, hooks: dict[str, object]) -> None:
    (env.home / "hooks.json").write_text(json.dumps({"hooks": hooks}))


def command_hook(command: str, matcher: str = "") -> list[dict[str, object]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


async def test_permission_request_hook_can_approve(auger_env: AugerEnv, project_cwd: Path) -> None:
    allow = json.dumps({"hookSpecificOutput": {"decision": {"behavior": "allow"}}})
    hooks_file(auger_env, {"PermissionRequest": command_hook(f"echo '{allow}'", "execute")})
    auger_env.llm.add(call("execute", command="echo approved-by-hook"), {"text": "ok"})
    session = await open_session(auger_env)
    try:
        seen = await drive(session, "go", [])
    finally:
        await session.aclose()
    assert asks(seen) == []
    assert "approved-by-hook" in finished(seen)[0].output


async def test_stop_hook_continues_the_turn_once(auger_env: AugerEnv, project_cwd: Path) -> None:
    script = project_cwd.parent / "stop.sh"
    script.write_text(
        "#!/bin/sh\n"
        'grep -q \'"stop_hook_active": false\' && { echo "run the tests first" >&2; exit 2; }\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    hooks_file(auger_env, {"Stop": command_hook(str(script))})
    auger_env.llm.add({"text": "first answer"}, {"text": "tests ran"})
    session = await open_session(auger_env)
    try:
        seen = await drive(session, "go", [])
    finally:
        await session.aclose()
    assert len(auger_env.llm.requests) == 2
    assert "run the tests first" in json.dumps(auger_env.llm.requests[1]["messages"])
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].text == "tests ran"


async def test_user_prompt_submit_block_never_reaches_the_model(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    hooks_file(auger_env, {"UserPromptSubmit": command_hook("echo 'no secrets in prompts' >&2; exit 2")})
    session = await open_session(auger_env)
    try:
        seen = await drive(session, "hello", [])
    finally:
        await session.aclose()
    assert auger_env.llm.requests == []
    errors = [e for e in seen if isinstance(e, ev.Error)]
    assert errors and "no secrets in prompts" in errors[0].message
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].reason == "error"


async def test_secret_in_prompt_and_tool_output_is_redacted(
    auger_env: AugerEnv, project_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-session-test-0123456789"
    monkeypatch.setenv("SESSION_TEST_API_KEY", secret)
    import auger.core.safety.redaction as redact

    monkeypatch.setattr(redact, "_default", redact.Redactor())
    monkeypatch.setattr(redact, "_default_ready", False)
    auger_env.llm.add(call("execute", command="echo $SESSION_TEST_API_KEY"), {"text": "done"})
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, f"my key is {secret}", [])
        history = await session.messages()
    finally:
        await session.aclose()
    assert secret not in json.dumps([e.to_dict() for e in seen], default=str)
    assert secret not in json.dumps(auger_env.llm.requests)
    assert secret not in str([m.content for m in history])
    assert "[redacted:$SESSION_TEST_API_KEY]" in finished(seen)[0].output


async def test_a_prompt_with_inlined_files_keeps_what_was_typed_redacted_and_titled_by_it(
    auger_env: AugerEnv, project_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`@path`s inlined by the agent (TurnOptions.mentions): the model gets the file, the thread
    keeps the typed text as the turn's prompt and its title, and a secret typed with it is
    replaced there too (it was kept as typed)."""
    secret = "sk-typed-test-0123456789"
    monkeypatch.setenv("TYPED_TEST_API_KEY", secret)
    import auger.core.safety.redaction as redact

    monkeypatch.setattr(redact, "_default", redact.Redactor())
    monkeypatch.setattr(redact, "_default_ready", False)
    (project_cwd / "notes.md").write_text("the notes body\n")
    auger_env.llm.add({"text": "read"})
    session = await open_session(auger_env, mode="yolo")
    try:
        typed = f"use {secret} with @notes.md"
        seen = [e async for e in session.send(typed, TurnOptions("yolo", mentions=True))]
        history = await session.messages()
        saved = [e.prompt for e in await session.history() if isinstance(e, ev.TurnStarted)]
        info = await session.thread_info()
    finally:
        await session.aclose()
    started = [e for e in seen if isinstance(e, ev.TurnStarted)]
    assert started[0].files == ["notes.md"] and "the notes body" in started[0].prompt
    assert "the notes body" in json.dumps(auger_env.llm.requests[-1]["messages"])
    assert secret not in json.dumps([m.model_dump() for m in history], default=str)
    assert saved == ["use [redacted:$TYPED_TEST_API_KEY] with @notes.md"]
    assert info is not None and info.title == "use [redacted:$TYPED_TEST_API_KEY] with @notes.md"


async def test_inlined_files_are_read_as_the_agent_reads_them(auger_env: AugerEnv, project_cwd: Path) -> None:
    """`@path`s are read through the agent's backend and its deny rules: a denied file, a path out
    of the project and a name no file system takes stay text, and the turn runs (a name too long
    raised before the turn started, which then never ended)."""
    project_config(auger_env, '[permissions]\ndeny = ["read_file(.env)"]\n')
    (project_cwd / ".env").write_text("TOKEN=from-the-env-file\n")
    (project_cwd / "notes.md").write_text("the notes body\n")
    (project_cwd.parent / "outside.txt").write_text("outside the project\n")
    auger_env.llm.add({"text": "read"})
    session = await open_session(auger_env, mode="yolo")
    try:
        typed = f"see @.env @../outside.txt @{'a' * 300} @nul\x00name and @notes.md"
        seen = [e async for e in session.send(typed, TurnOptions("yolo", mentions=True))]
    finally:
        await session.aclose()
    started = [e for e in seen if isinstance(e, ev.TurnStarted)]
    assert started[0].files == ["notes.md"]
    assert [e.reason for e in seen if isinstance(e, ev.TurnEnded)] == ["done"]
    sent = json.dumps(auger_env.llm.requests[-1]["messages"])
    assert "the notes body" in sent
    assert "from-the-env-file" not in sent and "outside the project" not in sent


def test_recursion_limit_is_derived_from_the_turn_cap(auger_env: AugerEnv) -> None:
    """The turn cap ends a run first (with a final message); LangGraph's limit is only a backstop.
    A turn's own `max_turns` (TurnOptions) wins over the configured one."""
    import asyncio

    from auger.core.port import TurnOptions
    from auger.core.runtime import Runtime
    from auger.core.safety.redaction import Redactor
    from auger.core.session.turn import Turn

    for cap in (1, 7, 50):
        settings = load_settings(cwd=auger_env.project, env=auger_env.env, flags={"max_turns": cap})
        runtime = Runtime(settings, None, None, None, None, None, None, Redactor(), None)  # type: ignore[arg-type]
        session = Session(runtime)
        assert session.config()["recursion_limit"] == 20 * cap + 100
        turn = Turn(session, TurnOptions(), asyncio.Queue())
        assert turn.max_turns == cap and turn._context().max_turns == cap
        assert Turn(session, TurnOptions(max_turns=3), asyncio.Queue()).max_turns == 3
