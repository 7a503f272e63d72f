"""The model's tokens reach the turn's events through TokenRelay (issue 16 item 2): streamed in
chunks, a subagent's under its `task` call, in order with the tool events — and no graph node
walks the whole history to note message ids, which LangGraph's "messages" mode did per node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auger.core import events as ev
from conftest import AugerEnv
from session_helpers import drive, open_session


def call(name: str, **args: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "args": args}]}


@pytest.fixture
def project_cwd(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    return auger_env.project


async def test_tokens_stream_per_agent_without_a_history_walk_per_node(
    auger_env: AugerEnv, project_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph.pregel._messages import StreamMessagesHandler

    walks: list[Any] = []
    inner = StreamMessagesHandler.on_chain_start
    monkeypatch.setattr(
        StreamMessagesHandler, "on_chain_start", lambda self, *a, **k: walks.append(a) or inner(self, *a, **k)
    )
    auger_env.llm.add(
        {
            "reasoning": "let me think about it",
            **call("task", subagent_type="general-purpose", description="look"),
        },
        {"text": "the subagent's own answer, streamed"},
        {"text": "the main agent's answer, in chunks"},
    )
    session = await open_session(auger_env, mode="yolo")
    try:
        seen = await drive(session, "go", [])
    finally:
        await session.aclose()
    started = next(e for e in seen if isinstance(e, ev.SubagentStarted))
    inner_deltas = [e for e in seen if isinstance(e, ev.TextDelta) and e.parent_id == started.call_id]
    main_deltas = [e for e in seen if isinstance(e, ev.TextDelta) and e.parent_id is None]
    assert "".join(e.text for e in inner_deltas) == "the subagent's own answer, streamed"
    assert "".join(e.text for e in main_deltas) == "the main agent's answer, in chunks"
    assert len(main_deltas) > 2 and len(inner_deltas) > 2  # streamed, not sent whole at the end
    assert "".join(e.text for e in seen if isinstance(e, ev.ReasoningDelta)) == "let me think about it"
    order = [type(e).__name__ for e in seen if not isinstance(e, ev.TextDelta | ev.ReasoningDelta | ev.Usage)]
    assert order.index("SubagentStarted") < order.index("SubagentFinished")
    finished = next(i for i, e in enumerate(seen) if isinstance(e, ev.SubagentFinished))
    assert seen.index(inner_deltas[-1]) < finished < seen.index(main_deltas[0])
    assert walks == []  # was: every node of the turn (6 per agent step), each over the whole state
