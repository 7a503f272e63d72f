"""`Session.compact`: a real session against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from auger.core import events as ev
from auger.core.runtime import open_session
from auger.core.session.session import Session
from auger.errors import UsageError
from auger.settings import Settings
from conftest_llm import ScriptedLLM
from session_helpers import options, scripted_settings


def _settings(tmp_path: Path, llm: ScriptedLLM, hooks: dict | None = None) -> Settings:  # type: ignore[type-arg]
    settings = scripted_settings(tmp_path, llm)
    if hooks is not None:  # read when the session is created
        (settings.home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    return settings


async def _send(session: Session, prompt: str) -> None:
    async for _ in session.send(prompt, options(session, headless=True)):
        pass


def _users(request: dict) -> list[str]:  # type: ignore[type-arg]
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


async def test_compact_summarises_with_the_current_model_and_the_next_turn_sees_only_the_summary(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    scripted_llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "echo platypus-output"}}]},
        {"text": "Ran it; the output says platypus.", "prompt_tokens": 900},
        {"text": "SUMMARY: the user ran echo and saw platypus-output; next: write the tests."},
        {"text": "continuing from the summary"},
    )
    session = await open_session(_settings(tmp_path, scripted_llm))
    try:
        await _send(session, "run the echo command")
        assert session.context_tokens > 900  # prompt + the reply
        await session.set_model("local:other-model")  # /model: the summary comes from the model in use now
        done = await session.compact("keep the word platypus")
        assert done is not None and done.summarized == 4
        assert done.summary.startswith("SUMMARY: the user ran echo")
        assert done.tokens_before > 900 and 0 < done.tokens_after < 900
        assert session.context_tokens == done.tokens_after
        assert (await session.runtime.graph.aget_state(session.config())).next == ()  # nothing left pending

        asked = scripted_llm.requests[-1]
        assert asked["model"] == "other-model" and "tools" not in asked
        text = "\n".join(str(m["content"]) for m in asked["messages"])
        assert "run the echo command" in text and "echo platypus-output" in text  # the call
        assert "platypus-output" in text.split("[tool result")[1]  # and its output
        assert "The user asks you to: keep the word platypus" in text

        await _send(session, "now write the tests")
        sent = scripted_llm.requests[-1]
        first = _users(sent)[0]  # after the local-context note auger puts in front of it
        assert (
            first.startswith("## Local context")
            and "\n\nHere is a summary of the conversation to date:" in first
        )
        assert "SUMMARY: the user ran echo" in _users(sent)[0]
        assert "run the echo command" not in json.dumps(sent["messages"])  # the old turn is gone
        assert _users(sent)[-1] == "now write the tests" and sent["model"] == "other-model"

        history = await session.messages()  # the thread itself keeps every message
        assert [m.content for m in history if m.type == "human"] == [
            "run the echo command",
            "now write the tests",
        ]
        assert session.runtime.threads.get(session.thread_id).message_count == 6
    finally:
        await session.aclose()


async def test_compact_twice_stacks_and_resume_keeps_the_summary(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    settings = _settings(tmp_path, scripted_llm)
    scripted_llm.add(
        {"text": "answer one"},
        {"text": "FIRST SUMMARY"},
        {"text": "answer two"},
        {"text": "SECOND SUMMARY"},
        {"text": "answer three"},
    )
    session = await open_session(settings)
    try:
        assert await session.compact() is None  # an empty thread: nothing to compact, no request
        assert scripted_llm.requests == []
        await _send(session, "question one")
        assert (await session.compact()) is not None
        assert await session.compact() is None  # only the summary is left
        await _send(session, "question two")
        second = await session.compact()
        assert second is not None and second.summarized == 3  # the first summary + turn two
        asked = "\n".join(str(m["content"]) for m in scripted_llm.requests[-1]["messages"])
        assert "[summary of the earlier conversation]" in asked and "FIRST SUMMARY" in asked
        assert "question two" in asked and "question one" not in asked
        tid = session.thread_id
    finally:
        await session.aclose()

    resumed = await open_session(settings, tid)
    try:
        assert resumed.context_tokens > 0  # the estimate was saved with the thread
        await _send(resumed, "question three")
        users = _users(scripted_llm.requests[-1])
        assert len(users) == 2 and "SECOND SUMMARY" in users[0] and users[1] == "question three"
    finally:
        await resumed.aclose()


async def test_compact_runs_pre_compact_hooks_and_refuses_during_a_turn(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    seen = tmp_path / "hook-input.json"
    script = tmp_path / "hook.py"
    script.write_text(
        "import json, sys\n"
        f"open({str(seen)!r}, 'w').write(sys.stdin.read())\n"
        "print(json.dumps({'systemMessage': 'saved a copy first'}))\n"
    )
    hooks = {
        "PreCompact": [
            {"matcher": "manual", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
        ]
    }
    scripted_llm.add({"text": "answer"}, {"text": "THE SUMMARY"}, {"hang": True})
    session = await open_session(_settings(tmp_path, scripted_llm, hooks))
    try:
        await _send(session, "hello")
        done = await session.compact("focus on tests")
        assert done is not None and ev.Notice("saved a copy first", "info") in done.notices
        payload = json.loads(seen.read_text())
        assert payload["hook_event_name"] == "PreCompact" and payload["trigger"] == "manual"
        assert payload["custom_instructions"] == "focus on tests"
        assert payload["session_id"] == session.thread_id

        stream = session.send("this one hangs", options(session))
        await stream.__anext__()  # the turn has started
        with pytest.raises(UsageError, match="turn is running"):
            await session.compact()
        session.cancel()
        async for _ in stream:
            pass
    finally:
        await session.aclose()
