"""Acceptance for the agent middleware, black-box through the scripted OpenAI-compatible server:
memory, skills catalogue and local context in the system prompt; a model switch on one thread and
its resume in a new process; `/skill args`; broken skills; subagents with tool allow-lists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from auger.core import events as ev
from auger.core.runtime import open_session
from auger.core.session.session import Session
from auger.settings import load_settings
from conftest import AugerEnv
from session_helpers import options

COMMIT_BODY_LINE = "Make one clean commit of the work that is ready"


def _system(request: dict[str, Any]) -> str:
    return "\n".join(json.dumps(m["content"]) for m in request["messages"] if m["role"] == "system")


def _last_user(request: dict[str, Any]) -> str:
    users = [m for m in request["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def _tool_names(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def _write_skill(
    folder: Path, name: str, front_name: str | None = None, description: str = "A skill."
) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {front_name or name}\ndescription: {description}\n---\n\nBODY OF {name}\n")
    return path


@pytest.fixture
def in_process(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> AugerEnv:
    """Run Session in this process with the same environment the `auger` subprocesses get."""
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    return auger_env


async def _session(env: AugerEnv, mode: str = "yolo", thread_id: str | None = None) -> Session:
    settings = load_settings(cwd=env.project, env=env.env, flags={"mode": mode})
    return await open_session(settings, thread_id)


async def _turn(session: Session, prompt: str) -> list[ev.Event]:
    return [event async for event in session.send(prompt, options(session))]


def test_system_prompt_has_memory_skills_catalogue_and_local_context(auger_env: AugerEnv) -> None:
    subprocess.run(["git", "init", "-q", "-b", "feature/e2e-branch", str(auger_env.project)], check=True)
    (auger_env.home / "AGENTS.md").write_text("USER-MEMORY: the user prefers tabs.\n")
    (auger_env.project / "AGENTS.md").write_text("PROJECT-MEMORY: run tests with make check.\n")
    (auger_env.project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    auger_env.llm.add({"text": "Hi."})
    proc = auger_env.run("-n", "hello")
    assert proc.returncode == 0, proc.stderr
    system = _system(auger_env.llm.requests[0])
    assert "USER-MEMORY: the user prefers tabs." in system
    assert "PROJECT-MEMORY: run tests with make check." in system
    assert "/~auger/AGENTS.md" in system and "/AGENTS.md" in system
    assert "**commit**" in system and "Review the working-tree changes" in system  # name + description
    assert "**remember**" in system and "/~builtin/skills/commit/SKILL.md" in system
    assert COMMIT_BODY_LINE not in system  # bodies are read on demand, not sent
    first_user = json.dumps(auger_env.llm.requests[0]["messages"][1])
    assert "feature/e2e-branch" in first_user and "Python (pip)" in first_user
    assert "feature/e2e-branch" not in system  # volatile facts stay out of the cached prefix


async def test_model_switch_on_one_thread_and_resume_in_a_new_process(in_process: AugerEnv) -> None:
    env = in_process
    env.llm.add(
        {"text": "First answer.", "when": {"model": "scripted-model"}},
        {"text": "Second answer.", "when": {"model": "other-model"}},
    )
    session = await _session(env)
    try:
        await _turn(session, "turn one")
        await session.set_model("local:other-model")
        second = await _turn(session, "turn two")
        values = (await session.runtime.graph.aget_state(session.config())).values
        thread_id = session.thread_id
    finally:
        await session.aclose()
    first_req, second_req = env.llm.requests
    assert first_req["model"] == "scripted-model" and second_req["model"] == "other-model"
    history = json.dumps(second_req["messages"])
    assert "turn one" in history and "First answer." in history and "turn two" in history
    assert values["_model_spec"] == "local:other-model"
    usage = [e for e in second if isinstance(e, ev.Usage) and e.parent_id is None][-1]
    assert values["_context_tokens"] == usage.total_tokens > 0

    snippet = (
        "import asyncio, json, sys\n"
        "from auger.settings import load_settings\n"
        "from auger.core.runtime import open_session\n"
        "async def main():\n"
        "    s = await open_session(load_settings(), sys.argv[1])\n"
        "    print(json.dumps({'model': s.model_spec, 'tokens': s.context_tokens}))\n"
        "    await s.aclose()\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", snippet, thread_id],
        capture_output=True,
        text=True,
        cwd=env.project,
        env=env.env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    resumed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert resumed == {"model": "local:other-model", "tokens": usage.total_tokens}


def test_skill_invocation_headless_sends_body_and_request(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "Committed."})
    proc = auger_env.run("-n", "/commit fix typo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    sent = _last_user(auger_env.llm.requests[0])
    assert COMMIT_BODY_LINE in sent and sent.rstrip('"').endswith("fix typo")
    assert "name: commit" not in sent  # the frontmatter is not repeated
    started = auger_env.events(proc)[0]
    assert started["type"] == "turn_started" and started["prompt"] == "/commit fix typo"


async def test_skill_invocation_through_session_is_marked_in_the_resumed_thread(in_process: AugerEnv) -> None:
    env = in_process
    _write_skill(env.project / ".auger" / "skills", "deploy", description="Deploy the app.")
    env.llm.add({"text": "Deployed."})
    session = await _session(env)
    try:
        await _turn(session, "/deploy to staging")
        thread_id = session.thread_id
    finally:
        await session.aclose()
    sent = _last_user(env.llm.requests[0])
    assert "BODY OF deploy" in sent and "to staging" in sent
    reopened = await _session(env, thread_id=thread_id)
    try:
        first = (await reopened.messages())[0]
        started = (await reopened.history())[0]
    finally:
        await reopened.aclose()
    assert first.additional_kwargs["auger_skill"]["name"] == "deploy"
    assert isinstance(started, ev.TurnStarted) and started.prompt == "/deploy to staging"  # as typed
    assert first.additional_kwargs["auger_skill"]["args"] == "to staging"


def test_broken_skill_warns_and_the_good_ones_load(auger_env: AugerEnv) -> None:
    skills = auger_env.project / ".auger" / "skills"
    _write_skill(skills, "good-one", description="The good skill.")
    broken = _write_skill(skills, "broken", front_name="not-broken")
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "hi", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    reason = "name 'not-broken' does not match its folder 'broken'"
    notices = [e for e in auger_env.events(proc) if e["type"] == "notice" and e["level"] == "warning"]
    assert any(str(broken) in n["message"] and reason in n["message"] for n in notices)
    assert f"skipped skill {broken}: {reason}" in proc.stderr
    system = _system(auger_env.llm.requests[0])
    assert "**good-one**" in system and "The good skill." in system
    assert "**commit**" in system and "**broken**" not in system and "**not-broken**" not in system


async def test_subagent_gets_only_its_allowed_tools_and_its_model(in_process: AugerEnv) -> None:
    env = in_process
    agents = env.project / ".auger" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(
        "---\nname: scout\ndescription: Finds things in the code.\n"
        "tools: [read_file, grep]\nmodel: local:other-model\n---\n\nYOU ARE THE SCOUT.\n"
    )
    task = {"name": "task", "args": {"subagent_type": "scout", "description": "find foo"}}
    env.llm.add(
        {"tool_calls": [task], "when": {"model": "scripted-model"}},
        {"text": "foo is in a.py", "when": {"model": "other-model"}},
        {"text": "The scout found it.", "when": {"model": "scripted-model"}},
    )
    session = await _session(env)
    try:
        events = await _turn(session, "where is foo?")
    finally:
        await session.aclose()
    main_first, sub, main_last = env.llm.requests
    assert "task" in _tool_names(main_first) and "scout" in json.dumps(main_first["tools"])
    assert sub["model"] == "other-model" and "YOU ARE THE SCOUT." in _system(sub)
    assert _tool_names(sub) == {"read_file", "grep"}
    assert "foo is in a.py" in json.dumps(main_last["messages"])
    finished = [e for e in events if isinstance(e, ev.SubagentFinished)]
    assert finished and finished[0].subagent_type == "scout"


async def test_general_purpose_subagent_follows_the_model_switch(in_process: AugerEnv) -> None:
    env = in_process
    task = {"name": "task", "args": {"subagent_type": "general-purpose", "description": "count files"}}
    env.llm.add(
        {"tool_calls": [task], "when": {"model": "other-model"}},
        {"text": "3 files", "when": {"model": "other-model"}},
        {"text": "There are 3.", "when": {"model": "other-model"}},
    )
    session = await _session(env)
    try:
        await session.set_model("local:other-model")
        await _turn(session, "count the files")
    finally:
        await session.aclose()
    assert [r["model"] for r in env.llm.requests] == ["other-model"] * 3
    assert "task" not in _tool_names(env.llm.requests[1])  # the second call is the subagent's
