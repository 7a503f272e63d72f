"""The chat body langchain-openai builds goes out without the openai SDK's per-call walk
(auger.core.models.requests.openai_body), and the bytes on the wire are the SDK's own: the
same requests through both paths, against the scripted server, compared byte for byte."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from auger.core.models.providers import build_chat_model
from auger.core.models.requests.openai_body import PrebuiltBodyCompletions
from auger.core.models.specs import ModelSpec
from conftest_llm import ScriptedLLM

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@tool
def grep(pattern: str, path: str | None = None, max_count: int | None = None) -> str:
    """Search file contents for a pattern."""
    return ""


HISTORY = [
    SystemMessage([{"type": "text", "text": "You are auger."}, {"type": "text", "text": "\n\n## Skills ✓"}]),
    HumanMessage(
        [
            {"type": "text", "text": "what is in this picture? — ünïcode"},
            {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
        ]
    ),
    AIMessage(
        "", tool_calls=[{"name": "grep", "args": {"pattern": "def main", "max_count": 3}, "id": "call_1"}]
    ),
    ToolMessage("src/app.py:1: def main():", tool_call_id="call_1"),
    AIMessage("Found it.\n\n```py\ndef main(): ...\n```"),
    HumanMessage('and now "quoted" text\twith a tab'),
]


def _model(llm: ScriptedLLM, **params: Any) -> Any:
    spec = ModelSpec(provider="local", model="scripted-model", base_url=llm.base_url)
    return build_chat_model(spec, {}, **params)


def _sdk_path(model: Any) -> Any:
    model.async_client = model.root_async_client.chat.completions
    return model


async def test_the_bytes_on_the_wire_are_the_sdk_s_own(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.add(*[{"text": "ok"}] * 4)
    params = {"temperature": 0.2, "max_tokens": 64, "headers": {"X-Client": "auger"}}
    prebuilt = _model(scripted_llm, **params)
    assert isinstance(prebuilt.async_client, PrebuiltBodyCompletions)
    for model in (prebuilt, _sdk_path(_model(scripted_llm, **params))):
        bound = model.bind_tools([grep])
        chunks = [chunk async for chunk in bound.astream(HISTORY)]
        assert "".join(str(c.content) for c in chunks) == "ok"
        await model.ainvoke("plain, not streamed")
    via_auger, via_sdk = scripted_llm.bodies[:2], scripted_llm.bodies[2:]
    assert via_auger == via_sdk
    assert b'"tools"' in via_auger[0] and b"image_url" in via_auger[0] and b"tool_call_id" in via_auger[0]


class Answer(BaseModel):
    text: str


async def test_structured_output_still_goes_through_the_sdk(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.add({"text": '{"text": "hi"}'})
    structured = _model(scripted_llm).with_structured_output(Answer, method="json_schema")
    assert await structured.ainvoke("answer") == Answer(text="hi")
    assert scripted_llm.requests[0]["response_format"]["type"] == "json_schema"
