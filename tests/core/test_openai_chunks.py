"""Streamed chat-completion chunks reach langchain as dicts
(auger.core.models.replies.openai_chunks): the same message as the SDK's models gave — text,
reasoning, tool calls, usage, finish reason — without building a pydantic model per chunk."""

from __future__ import annotations

from typing import Any

from auger.core.models.providers import build_chat_model
from auger.core.models.specs import parse_spec
from auger.settings import ProviderSettings
from llm_server import ScriptedLLM


def _model(llm: ScriptedLLM) -> Any:
    providers = {"local": ProviderSettings("local", llm.base_url, None, ["scripted-model"], {})}
    return build_chat_model(parse_spec("local:scripted-model", providers), env={})


async def _streamed(model: Any, seen: list[Any]) -> Any:
    client = model.root_async_client
    process = client._process_response_data

    def spy(**kwargs: Any) -> Any:
        out = process(**kwargs)
        seen.append(out)
        return out

    client._process_response_data = spy
    total = None
    async for chunk in model.astream("hi"):
        total = chunk if total is None else total + chunk
    return total


async def test_stream_chunks_are_dicts_and_the_message_is_whole(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.add(
        {"reasoning": "think first", "text": "Hello **there**, a longer reply.", "chunk_chars": 4},
        {"tool_calls": [{"name": "ls", "args": {"path": "/src"}}]},
    )
    model = _model(scripted_llm)
    seen: list[Any] = []
    message = await _streamed(model, seen)
    assert seen and all(isinstance(chunk, dict) for chunk in seen)  # no ChatCompletionChunk built
    assert message.content == "Hello **there**, a longer reply."
    assert message.additional_kwargs["reasoning_content"] == "think first"
    assert message.response_metadata["finish_reason"] == "stop"
    assert message.usage_metadata and message.usage_metadata["total_tokens"] > 0
    seen.clear()
    message = await _streamed(model.bind_tools([{"type": "function", "function": {"name": "ls"}}]), seen)
    assert all(isinstance(chunk, dict) for chunk in seen)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("ls", {"path": "/src"})]
    assert message.response_metadata["finish_reason"] == "tool_calls"
