"""A chat request's JSON is built from each message's bytes, encoded once
(auger.core.models.requests.body_json): the bytes are the openai SDK's own encoding of the whole body, on
every kind of message and history, and a long thread encodes only the messages it has not sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from openai import _base_client
from openai._utils._json import openapi_dumps

from auger.core.models.providers import build_chat_model
from auger.core.models.requests import body_json
from auger.core.models.requests.body_json import BodyJson
from auger.core.models.requests.openai_body import PrebuiltBodyCompletions
from auger.core.models.specs import ModelSpec
from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import counted_turns, scripted_settings

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@tool
def grep(pattern: str, path: str | None = None) -> str:
    """Search file contents for a pattern."""
    return ""


def _history() -> list[BaseMessage]:
    return [
        HumanMessage(
            [
                {"type": "text", "text": "what is in this picture? — ünïcode \U0001f600 \u2028"},
                {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
            ]
        ),
        AIMessage(
            [{"type": "text", "text": "Let me look.", "annotations": []}],
            tool_calls=[{"name": "grep", "args": {"pattern": 'def "main"\\', "path": None}, "id": "call_1"}],
        ),
        ToolMessage("src/app.py:1: def main():\n\ttab \x00 nul", tool_call_id="call_1"),
        AIMessage("Found it. 1.5e300 ∞", additional_kwargs={"reasoning_content": "hidden"}),
        HumanMessage('and now "quoted" text\twith a tab', name="user-1"),
    ]


def _model(url: str = "http://127.0.0.1:9/v1", **params: Any) -> Any:
    return build_chat_model(ModelSpec(provider="local", model="scripted-model", base_url=url), {}, **params)


def test_the_bytes_are_the_sdk_s_encoding_of_the_whole_body_and_only_new_messages_are_encoded() -> None:
    model = _model(temperature=0.2, max_tokens=64).bind_tools([grep])
    chat = model.bound
    encoder = BodyJson()
    history = _history()
    kwargs = {**model.kwargs, "stream": True}

    def check(messages: list[BaseMessage]) -> int:
        body = chat._get_request_payload(messages, **kwargs)
        before = encoder.encoded
        assert encoder.encode(body) == openapi_dumps(body)
        return encoder.encoded - before

    for step in range(len(history)):  # a new system prompt each call, as auger's middleware builds
        assert check([SystemMessage(f"system at step {step}"), *history[: step + 1]]) == 2
    rewritten = [*history[:2], history[2].model_copy(update={"content": "rewritten ✓"}), *history[3:]]
    assert check(rewritten) == 1  # the copy only
    assert check(history[2:]) == 0  # the start summarised away: nothing new to encode
    assert check([*history, HumanMessage("again")]) == 1  # the start back: still known; the new one
    nan = {"messages": [{"role": "user", "content": "x"}], "temperature": float("nan")}
    with pytest.raises(ValueError):  # as the SDK's encoding, NaN is refused
        encoder.encode(nan)
    with pytest.raises(ValueError):
        openapi_dumps(nan)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the message dicts JSON-encoded, by auger's encoder or by the SDK (whole bodies)."""
    count = [0]

    def ours(value: Any) -> bytes:
        count[0] += isinstance(value, dict) and "role" in value
        return openapi_dumps(value)

    def sdk(value: Any) -> bytes:
        count[0] += len(value.get("messages") or []) if isinstance(value, dict) else 0
        return openapi_dumps(value)

    monkeypatch.setattr(body_json, "openapi_dumps", ours)
    monkeypatch.setattr(_base_client, "openapi_dumps", sdk)
    return count


def _scripts(turns: int) -> list[list[dict[str, Any]]]:
    calls = [{"name": "ls", "args": {"path": "/"}, "id": f"call_{i}"} for i in range(turns)]
    return [[{"tool_calls": [call]}, {"text": f"answer {i} — ✓"}] for i, call in enumerate(calls)]


async def _thread(session: Any, llm: ScriptedLLM, turns: int, count: list[int]) -> list[int]:
    return await counted_turns(session, llm, _scripts(turns), "question {i} «ü»", count)


async def test_a_long_thread_encodes_only_new_messages_and_sends_the_sdk_s_bytes(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = _counting(monkeypatch)
    session = await open_session(scripted_settings(tmp_path, scripted_llm))
    turns = 10
    try:
        counts = await _thread(session, scripted_llm, turns, count)
        ours = scripted_llm.bodies
        # the same thread again, each body encoded whole by the SDK's own encoder
        monkeypatch.setattr(BodyJson, "encode", lambda self, body: _base_client.openapi_dumps(body))
        sdk_counts = await _thread(session, scripted_llm, turns, count)
        sdk = scripted_llm.bodies[len(ours) :]
    finally:
        await session.aclose()
    assert len(ours) == 2 * turns and ours == sdk  # byte for byte, every request of every turn
    assert json.loads(ours[-1])["messages"][-1]["content"] == "No files found"  # `ls /` of an empty root
    # a turn's two calls: the system prompt twice, the last turn's messages read back, the new
    # ones; never the thread (turn 10 sends 40 messages)
    assert max(counts) <= 12 and counts[-1] == counts[2], counts
    assert sdk_counts[-1] > 70, sdk_counts  # what the SDK encodes at turn 10


async def test_extra_body_is_left_to_the_sdk_to_merge(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.add("ok")
    model = _model(scripted_llm.base_url, extra_body={"top_k": 20})
    assert isinstance(model.async_client, PrebuiltBodyCompletions)
    await model.ainvoke(_history())
    sent = scripted_llm.requests[0]
    assert sent["top_k"] == 20 and len(sent["messages"]) == 5
