"""langchain's per-call passes over the history look at each message once
(auger.core.middleware.history_passes): the same results as langchain's own functions on every
kind of message, installed where langchain looks them up, and a long thread's turns run them
only on what is new."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import factory
from langchain_core.language_models import chat_models
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from auger.core.middleware import history_passes
from auger.core.middleware.history_passes import RememberedMap, RememberedPatch
from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import options, scripted_settings

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _originals() -> dict[str, Any]:
    history_passes.install()
    return {
        "format": chat_models._format_for_tracing.original,  # type: ignore[attr-defined]
        "normalize": chat_models._normalize_messages.original,  # type: ignore[attr-defined]
        "patch": factory._patch_invalid_tool_calls.original,  # type: ignore[attr-defined]
    }


def _history() -> list[BaseMessage]:
    """A message of each kind the passes convert, copy or answer, between plain ones."""
    call = {"name": "ls", "args": {"path": "/"}, "id": "c1"}
    return [
        SystemMessage("system"),
        HumanMessage("plain"),
        HumanMessage(
            [
                {"type": "text", "text": "v1 image"},
                {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
            ]
        ),
        HumanMessage([{"type": "image", "source_type": "base64", "data": PIXEL, "mime_type": "image/png"}]),
        HumanMessage([{"type": "file", "base64": PIXEL, "mime_type": "application/pdf"}]),
        HumanMessage([{"type": "input_audio", "input_audio": {"data": PIXEL, "format": "wav"}}]),
        HumanMessage([{"text": "a block without its type"}, "a string"]),
        AIMessage("", tool_calls=[call]),
        ToolMessage("out", tool_call_id="c1"),
        AIMessage([{"type": "text", "text": "blocks"}]),
        AIMessage("", invalid_tool_calls=[{"name": "ls", "args": "{oops", "id": "bad1", "error": "json"}]),
        AIMessage("", invalid_tool_calls=[{"name": "ls", "args": "{", "id": "bad2", "error": "json"}]),
        ToolMessage("answered", tool_call_id="bad2"),
        HumanMessage("thanks"),
    ]


def _dump(messages: list[Any]) -> list[Any]:
    """The messages, each converted block's random id (langchain's `lc_<uuid>`, new at every
    conversion) named alike."""
    import re

    return [(type(m).__name__, re.sub(r"lc_[0-9a-f-]{36}", "lc_X", str(m.model_dump()))) for m in messages]


def test_the_passes_give_langchains_results_and_look_at_each_message_once() -> None:
    originals = _originals()
    history = _history()
    for name, original in originals.items():
        ours = RememberedPatch(original) if name == "patch" else RememberedMap(original)
        for end in range(len(history) + 1):  # a growing history: each call adds a message
            request = history[:end]
            before = ours.looked_at
            got, theirs = ours(request), original(list(request))
            assert _dump(got) == _dump(theirs), (name, end)
            # what langchain passes on as it is stays the same object
            assert [a is m for a, m in zip(got, request, strict=False)] == [
                b is m for b, m in zip(theirs, request, strict=False)
            ], (name, end)
            assert ours.looked_at - before == (1 if end else 0), (name, end)
    patch = RememberedPatch(originals["patch"])
    patched = patch(history)
    assert [m.tool_call_id for m in patched if isinstance(m, ToolMessage)] == ["c1", "bad1", "bad2"]
    clean = [m for m in history if not (isinstance(m, AIMessage) and m.invalid_tool_calls)]
    assert patch(clean) == clean and patch(clean) is not clean  # nothing to add: a list of the same


def test_install_replaces_the_globals_langchain_looks_up() -> None:
    """A langchain release that renames or drops one fails here (the speed-up would be gone)."""
    history_passes.install()
    history_passes.install()  # once only
    assert isinstance(chat_models._format_for_tracing, RememberedMap)
    assert isinstance(chat_models._normalize_messages, RememberedMap)
    assert isinstance(factory._patch_invalid_tool_calls, RememberedPatch)
    assert not isinstance(chat_models._format_for_tracing.original, RememberedMap)
    # where langchain calls them: BaseChatModel.agenerate and the agent's model node
    import inspect

    agenerate = inspect.getsource(chat_models.BaseChatModel.agenerate)
    assert "_format_for_tracing(" in agenerate and "_normalize_messages(" in agenerate
    assert "_patch_invalid_tool_calls(state" in inspect.getsource(factory.create_agent)


async def test_a_long_thread_runs_the_passes_only_on_each_turn_s_new_messages(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    for module_name, name in history_passes.PASSES:  # langchain's own until auger builds its agent
        module = importlib.import_module(module_name)
        current = getattr(module, name)
        monkeypatch.setattr(module, name, getattr(current, "original", current))
    session = await open_session(scripted_settings(tmp_path, scripted_llm))
    passes = [
        chat_models._format_for_tracing,
        chat_models._normalize_messages,
        factory._patch_invalid_tool_calls,
    ]
    per_turn = []
    try:
        for i in range(10):
            call = {"name": "ls", "args": {"path": "/"}, "id": f"call_{i}"}
            scripted_llm.add({"tool_calls": [call]}, {"text": f"answer {i}"})
            before = sum(p.looked_at for p in passes)  # type: ignore[attr-defined]
            events = [e async for e in session.send(f"question {i}", options(session, headless=True))]
            assert type(events[-1]).__name__ == "TurnEnded", events[-1]
            per_turn.append(sum(p.looked_at for p in passes) - before)  # type: ignore[attr-defined]
    finally:
        await session.aclose()
    # two model calls a turn, each new message once per pass; langchain's: every message, each call
    assert per_turn[-1] == per_turn[2] and max(per_turn) <= 32, per_turn
