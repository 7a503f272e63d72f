"""Session API in-process against the scripted server: approvals answered through the event,
cancel keeps what was done, model switch on the same thread."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from auger.core import events as ev
from auger.core.session.session import Session
from conftest import AugerEnv
from session_helpers import drive, open_session, options

WRITE = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.txt", "content": "A\n"}}]}
SHELL = {"tool_calls": [{"name": "execute", "args": {"command": "echo shell-ran"}}]}


@pytest.fixture
def project_cwd(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    return auger_env.project


async def test_approve_then_reject_with_message_in_one_turn(auger_env: AugerEnv, project_cwd: Path) -> None:
    auger_env.llm.add(WRITE, SHELL, {"text": "ok"})
    session = await open_session(auger_env)
    try:
        seen = await drive(
            session, "go", [ev.ApprovalDecision("approve"), ev.ApprovalDecision("reject", "no shell today")]
        )
    finally:
        await session.aclose()
    asks = [e for e in seen if isinstance(e, ev.ApprovalRequested)]
    assert [a.name for a in asks] == ["write_file", "execute"]
    assert asks[0].args["file_path"] == "/a.txt"
    assert (project_cwd / "a.txt").read_text() == "A\n"
    done = {e.name: e for e in seen if isinstance(e, ev.ToolCallFinished)}
    assert done["execute"].status == "rejected"
    tool_msgs = [m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "no shell today" in str(tool_msgs[-1]["content"])
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].reason == "done"


async def test_approve_always_covers_later_calls_of_the_thread(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    auger_env.llm.add(SHELL, SHELL, {"text": "one"}, SHELL, {"text": "two"})
    session = await open_session(auger_env)
    try:
        first = await drive(session, "run twice", [ev.ApprovalDecision("approve_always")])
        second = await drive(session, "again", [])
    finally:
        await session.aclose()
    assert sum(isinstance(e, ev.ApprovalRequested) for e in first) == 1
    assert not any(isinstance(e, ev.ApprovalRequested) for e in second)
    outputs = [e.output for e in first + second if isinstance(e, ev.ToolCallFinished)]
    assert len(outputs) == 3 and all("shell-ran" in o for o in outputs)


async def test_resolve_approval_by_request_id(auger_env: AugerEnv, project_cwd: Path) -> None:
    auger_env.llm.add(WRITE, {"text": "ok"})
    session = await open_session(auger_env)
    try:
        async for event in session.send("write", options(session)):
            if isinstance(event, ev.ApprovalRequested):
                await session.resolve_approval(event.request_id, ev.ApprovalDecision("reject"))
    finally:
        await session.aclose()
    assert not (project_cwd / "a.txt").exists()


async def test_cancel_stops_the_turn_and_keeps_what_was_done(auger_env: AugerEnv, project_cwd: Path) -> None:
    auger_env.llm.add(WRITE, {"hang": True})
    session = await open_session(auger_env, mode="yolo")
    seen: list[ev.Event] = []
    try:
        async for event in session.send("write then think forever", options(session)):
            seen.append(event)
            if isinstance(event, ev.ToolCallFinished):
                asyncio.get_running_loop().call_later(0.3, session.cancel)
        history = await session.messages()
    finally:
        await session.aclose()
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].reason == "cancelled"
    assert (project_cwd / "a.txt").exists()
    kinds = [type(m).__name__ for m in history]
    assert kinds[:3] == ["HumanMessage", "AIMessage", "ToolMessage"]


async def test_model_switch_applies_to_next_turn_of_same_thread(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    auger_env.llm.add({"text": "first"}, {"when": {"model": "other-model"}, "text": "second"})
    session = await open_session(auger_env)
    try:
        await drive(session, "turn one", [])
        await session.set_model("local:other-model")
        seen = await drive(session, "turn two", [])
    finally:
        await session.aclose()
    assert [r["model"] for r in auger_env.llm.requests] == ["scripted-model", "other-model"]
    texts = [m.get("content") for m in auger_env.llm.requests[1]["messages"]]
    assert "turn one" in str(texts) and "first" in str(texts)
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].text == "second"


async def test_events_are_json_serialisable(auger_env: AugerEnv, project_cwd: Path) -> None:
    import json

    auger_env.llm.add(WRITE, {"reasoning": "hmm", "text": "ok"})
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, "go", [])
    finally:
        await session.aclose()
    for event in seen:
        data = json.loads(json.dumps(event.to_dict()))
        assert data["type"] == event.type
        assert ev.event_from_dict(data).to_dict() == event.to_dict()
    assert any(isinstance(e, ev.ReasoningDelta) and e.text for e in seen)


async def test_cancel_mid_answer_keeps_partial_text_and_thread_continues(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    auger_env.llm.add({"text_tokens": 4000, "rate": 400}, {"text": "after"})
    session = await open_session(auger_env)
    try:
        async for event in session.send("long answer", options(session)):
            if isinstance(event, ev.TextDelta):
                session.cancel()
        history = await session.messages()
        assert type(history[-1]).__name__ == "AIMessage"
        assert "[interrupted]" in str(history[-1].content)
        seen = await drive(session, "next", [])
    finally:
        await session.aclose()
    assert isinstance(seen[-1], ev.TurnEnded) and seen[-1].text == "after"


async def _cut_short(session: Session, after: int) -> tuple[list[ev.Event], str]:
    """Send "long answer" and cancel once `after` characters of it have streamed: the events
    and the text seen."""
    seen: list[ev.Event] = []
    streamed = ""
    async for event in session.send("long answer", options(session)):
        seen.append(event)
        if isinstance(event, ev.TextDelta):
            streamed += event.text
            if len(streamed) > after:
                session.cancel()
    return seen, streamed


async def test_a_cut_short_turn_saves_its_partial_answer_and_context_in_one_checkpoint(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    """Esc mid-answer: the partial answer and the estimate of the context it adds go into the
    thread in one state update (one checkpoint write, was two plus a second state read), and
    both are there: the text ends with the mark, the estimate counts the prompt and the text."""
    from auger.core.middleware.model.resume_state import CONTEXT_TOKENS

    auger_env.llm.add({"text": "short", "prompt_tokens": 1000}, {"text_tokens": 4000, "rate": 400})
    session = await open_session(auger_env)
    try:
        await drive(session, "first", [])
        checkpointer = session.runtime.graph.checkpointer
        put, updates = checkpointer.aput, []

        async def counted(config: Any, checkpoint: Any, metadata: Any, *args: Any) -> Any:
            if metadata.get("source") == "update":  # a state update's write (not the graph's steps)
                updates.append(checkpoint["id"])
            return await put(config, checkpoint, metadata, *args)

        checkpointer.aput = counted  # the real checkpointer, its writes counted
        seen, streamed = await _cut_short(session, after=400)
        values = await session.state()
    finally:
        await session.aclose()
    assert len(updates) == 1
    last = values["messages"][-1]
    assert type(last).__name__ == "AIMessage" and str(last.content).endswith("[interrupted]")
    assert str(last.content).startswith(streamed[:400])
    assert values[CONTEXT_TOKENS] > 1002 + 400 // 5  # the first turn's report, the prompt, the text
    usage = [e for e in seen if isinstance(e, ev.Usage)]
    assert usage and usage[-1].context_tokens == values[CONTEXT_TOKENS] == session.context_tokens


async def test_a_first_turn_cut_short_counts_the_system_prompt_and_tools(
    auger_env: AugerEnv, project_cwd: Path
) -> None:
    """Esc in a thread's first turn: no provider has reported a size yet, so the estimate counts
    what every call is sent besides the conversation — the system prompt and the tool schemas
    (~6k tokens) — not only the prompt and the partial answer (it showed 1.6k of ~8k)."""
    from langchain_core.messages.utils import count_tokens_approximately

    auger_env.llm.add({"text_tokens": 4000, "rate": 400})
    session = await open_session(auger_env)
    try:
        await _cut_short(session, after=400)
        values = await session.state()
    finally:
        await session.aclose()
    request = auger_env.llm.requests[-1]
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    fixed = count_tokens_approximately([{"role": "system", "content": system}], tools=request["tools"])
    conversation = count_tokens_approximately(values["messages"])
    assert fixed > 2000  # the system prompt and tool schemas are most of a first call
    assert session.context_tokens >= conversation + fixed * 0.9


async def test_cancel_drops_a_slow_front_ends_backlog(auger_env: AugerEnv, project_cwd: Path) -> None:
    """An unthrottled 20k-token reply read by a front end slower than the stream (a TUI repainting):
    after cancel() no more queued text reaches the front end, so the turn ends at once instead of
    after the whole backlog (this took ~115 s for 60k tokens before)."""
    auger_env.llm.add({"text_tokens": 20000})
    session = await open_session(auger_env)
    after_cancel: list[ev.Event] = []
    deltas = 0
    try:
        async for event in session.send("long answer", options(session)):
            await asyncio.sleep(0.002)  # a front end that renders slower than the model streams
            if deltas >= 20:
                after_cancel.append(event)
            elif isinstance(event, ev.TextDelta):
                deltas += 1
                if deltas == 20:
                    session.cancel()
    finally:
        await session.aclose()
    assert not [e for e in after_cancel if isinstance(e, ev.TextDelta | ev.ReasoningDelta)]
    assert isinstance(after_cancel[-1], ev.TurnEnded)
