"""Cross-provider history sanitation: crafted provider-specific messages, converted by the real
langchain-openai / langchain-anthropic serializers after sanitation."""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from langchain_anthropic.chat_models import _format_messages
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _convert_message_to_dict

from auger.core.middleware.model.provider_history import (
    FAMILY_KEY,
    ProviderHistoryMiddleware,
    message_family,
    model_family,
    sanitize_message,
)
from auger.core.models.openai_compat import ChatOpenAICompatible
from scripted_model import ScriptedChatModel

ANTHROPIC_REPLY = AIMessage(
    content=[
        {"type": "thinking", "thinking": "Let me think.", "signature": "SIGNED-BY-ANTHROPIC"},
        {"type": "redacted_thinking", "data": "REDACTED-BLOB"},
        {"type": "text", "text": "Listing the folder.", "cache_control": {"type": "ephemeral"}},
        {"type": "tool_use", "id": "toolu_01", "name": "ls", "input": {"path": "/"}},
    ],
    tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "toolu_01"}],
    response_metadata={"model_provider": "anthropic"},
)
OPENAI_RESPONSES_REPLY = AIMessage(
    content=[
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENCRYPTED-REASONING"},
        {"type": "text", "text": "Done.", "annotations": [], "id": "msg_1"},
    ],
    additional_kwargs={"reasoning": {"id": "rs_1", "encrypted_content": "ENCRYPTED-REASONING"}},
    response_metadata={"model_provider": "openai", "output_version": "responses/v1"},
)
VLLM_REPLY = AIMessage(
    content="ok",
    additional_kwargs={"reasoning_content": "PRIVATE-THOUGHTS"},
    response_metadata={"model_provider": "openai"},
)
FORBIDDEN = (
    "SIGNED-BY-ANTHROPIC",
    "REDACTED-BLOB",
    "cache_control",
    "ENCRYPTED-REASONING",
    "PRIVATE-THOUGHTS",
)


def _history() -> list:
    return [
        HumanMessage(content=[{"type": "text", "text": "list it", "cache_control": {"type": "ephemeral"}}]),
        ANTHROPIC_REPLY,
        ToolMessage(content="a.py", tool_call_id="toolu_01", name="ls"),
        OPENAI_RESPONSES_REPLY,
        HumanMessage(content="and then?"),
        VLLM_REPLY,
    ]


def test_families_of_models_and_messages() -> None:
    assert model_family(ChatOpenAI(model="gpt-4.1", api_key="x")) == "openai"
    assert model_family(ChatOpenAICompatible(model="q", api_key="x", base_url="http://h/v1")) == "openai"
    assert model_family(ChatAnthropic(model_name="claude-sonnet-4-5", api_key="x")) == "anthropic"  # type: ignore[call-arg]
    assert model_family(ChatOpenAI(model="gpt-5", api_key="x", use_responses_api=True)) == "openai_responses"
    assert model_family(ScriptedChatModel()) == "scripted"
    assert message_family(ANTHROPIC_REPLY) == "anthropic"
    assert message_family(AIMessage("x", response_metadata={FAMILY_KEY: "ollama"})) == "ollama"
    assert message_family(AIMessage("x")) is None
    assert message_family(OPENAI_RESPONSES_REPLY) == "openai_responses"
    assert message_family(VLLM_REPLY) == "openai"


def _sanitized(messages: list[Any], target: str) -> list[Any]:
    """The history as ProviderHistoryMiddleware sends it to a model of family `target`."""
    return [sanitize_message(msg, target) for msg in messages]


def test_anthropic_history_sent_to_openai_has_no_anthropic_marks() -> None:
    cleaned = _sanitized(_history(), "openai")
    payload = json.dumps([_convert_message_to_dict(m) for m in cleaned])
    for mark in FORBIDDEN:
        assert mark not in payload, mark
    ai = _convert_message_to_dict(cleaned[1])
    assert ai["content"] == "Listing the folder."
    assert ai["tool_calls"][0]["id"] == "toolu_01" and ai["tool_calls"][0]["function"]["name"] == "ls"
    assert _convert_message_to_dict(cleaned[3])["content"] == "Done."


def test_openai_history_sent_to_anthropic_has_no_openai_reasoning() -> None:
    cleaned = _sanitized(_history(), "anthropic")
    _, messages = _format_messages(cleaned, model="claude-sonnet-4-5")
    payload = json.dumps(messages)
    for mark in ("ENCRYPTED-REASONING", "PRIVATE-THOUGHTS", "rs_1", "msg_1"):
        assert mark not in payload, mark
    assert cleaned[1] is ANTHROPIC_REPLY  # its own family: sent as it was, signatures and all
    assert cleaned[0] is _history()[0] or "cache_control" in json.dumps(cleaned[0].content)


def test_same_family_and_plain_messages_are_untouched() -> None:
    history = _history()
    cleaned = _sanitized(history, "openai")
    assert cleaned[2] is history[2] and cleaned[4] is history[4]
    assert cleaned[5] is history[5]  # written by an openai chat-completions model
    assert cleaned[3] is not history[3]  # the Responses API's items mean nothing to chat completions
    assert _sanitized(history, "openai_responses")[3] is history[3]
    assert ANTHROPIC_REPLY.content[0]["signature"] == "SIGNED-BY-ANTHROPIC"  # the original is not mutated


def test_middleware_cleans_the_request_and_tags_the_reply() -> None:
    model = ScriptedChatModel(script=["fine"])
    agent = create_agent(model, middleware=[ProviderHistoryMiddleware()])
    out = agent.invoke({"messages": [HumanMessage("hi"), ANTHROPIC_REPLY, HumanMessage("go on")]})
    sent = model.calls[0]["messages"]
    assert sent[1].content == "Listing the folder." and sent[1].tool_calls[0]["id"] == "toolu_01"
    assert "SIGNED-BY-ANTHROPIC" not in json.dumps([m.model_dump() for m in sent], default=str)
    reply = out["messages"][-1]
    assert reply.response_metadata[FAMILY_KEY] == "scripted"
    assert out["messages"][1].content[0]["signature"] == "SIGNED-BY-ANTHROPIC"  # state keeps the original


def test_each_message_is_looked_at_once_while_it_stays_in_the_requests(monkeypatch: Any) -> None:
    """A long thread written by another provider: every call of a turn sends the cleaned copies it
    made at the first call (the same objects), and looks only at the messages new since."""
    from langchain.agents.middleware import ModelRequest

    from auger.core.middleware.model import provider_history

    looked = [0]
    family = provider_history.message_family

    def counted(msg: AIMessage) -> str | None:
        looked[0] += 1
        return family(msg)

    monkeypatch.setattr(provider_history, "message_family", counted)
    middleware = ProviderHistoryMiddleware()
    model = ChatOpenAICompatible(model="q", api_key="x", base_url="http://h/v1")
    history = [m for _ in range(50) for m in _history()]
    sent: list[list[Any]] = []

    def handler(request: ModelRequest) -> AIMessage:
        sent.append(request.messages)
        return AIMessage("ok")

    for step in range(5):
        history.append(AIMessage(f"step {step}", response_metadata={"model_provider": "anthropic"}))
        before = looked[0]
        middleware.wrap_model_call(ModelRequest(model=model, messages=list(history)), handler)
        ai = len({id(m) for m in history if isinstance(m, AIMessage)})  # the history repeats 3 AI messages
        assert looked[0] - before == (ai if step == 0 else 1)  # each AI message object once at the first call
    assert all(a is b for a, b in zip(sent[0], sent[-1], strict=False))  # the same cleaned copies
    assert sent[-1][1] is not history[1] and "SIGNED-BY-ANTHROPIC" not in str(sent[-1][1].content)
