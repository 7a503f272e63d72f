"""A request converts only the messages it has not sent before (auger.core.models.requests.message_dicts),
and sends the same bytes as langchain-openai converting the whole history: a real Session over
many turns against the scripted server, and the memo on its own with every kind of message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models import base as openai_base

from auger.core.models.providers import build_chat_model
from auger.core.models.requests.message_dicts import ChatOpenAIMessageMemo
from auger.core.models.specs import ModelSpec
from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import counted_turns, scripted_settings

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the messages langchain-openai converts to request dicts."""
    converted = [0]
    convert = openai_base._convert_message_to_dict

    def counted(message: BaseMessage, *args: Any, **kwargs: Any) -> dict[str, Any]:
        converted[0] += 1
        return convert(message, *args, **kwargs)

    monkeypatch.setattr(openai_base, "_convert_message_to_dict", counted)
    return converted


def _turn_script(i: int) -> list[dict[str, Any]]:
    call = {"name": "read_file", "args": {"file_path": "/README.md"}, "id": f"call_{i}"}
    return [{"tool_calls": [call]}, {"text": f"answer {i}"}]


async def _thread(session: Any, llm: ScriptedLLM, turns: int, converted: list[int]) -> list[int]:
    """Runs `turns` tool turns on a new thread; the messages converted in each turn."""
    scripts = [_turn_script(i) for i in range(turns)]
    return await counted_turns(session, llm, scripts, "question {i}", converted)


async def test_a_long_thread_converts_only_new_messages_and_sends_the_same_bytes(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = scripted_settings(tmp_path, scripted_llm)
    (settings.project_root / "README.md").write_text("# demo\n\nA small project.\n")
    converted = _counting(monkeypatch)
    session = await open_session(settings)
    turns = 12
    try:
        counts = await _thread(session, scripted_llm, turns, converted)
        memo_bodies = scripted_llm.bodies
        # the same thread again, each request converted whole by langchain-openai itself
        monkeypatch.setattr(ChatOpenAIMessageMemo, "_get_request_payload", ChatOpenAI._get_request_payload)
        whole_counts = await _thread(session, scripted_llm, turns, converted)
        whole_bodies = scripted_llm.bodies[len(memo_bodies) :]
    finally:
        await session.aclose()
    assert len(memo_bodies) == 2 * turns
    assert memo_bodies == whole_bodies  # byte for byte, every request of every turn
    # a turn's two calls: the system prompt, the first message (its context note), the last turn's
    # messages read back, the new ones; never the thread (turn 12 holds 48 messages)
    assert max(counts) <= 12 and counts[-1] == counts[2], counts
    assert whole_counts[-1] > 90, whole_counts  # what langchain-openai alone converts at turn 12


def _model(llm_url: str, model: str = "scripted-model") -> Any:
    return build_chat_model(ModelSpec(provider="local", model=model, base_url=llm_url), {})


def _history() -> list[BaseMessage]:
    return [
        SystemMessage([{"type": "text", "text": "You are auger."}, {"type": "text", "text": "## Skills ✓"}]),
        HumanMessage(
            [
                {"type": "text", "text": "what is in this picture? — ünïcode"},
                {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
            ]
        ),
        AIMessage(
            [{"type": "text", "text": "Let me look.", "annotations": []}],
            tool_calls=[{"name": "grep", "args": {"pattern": "def main"}, "id": "call_1"}],
        ),
        ToolMessage("src/app.py:1: def main():", tool_call_id="call_1"),
        AIMessage("Found it.", additional_kwargs={"reasoning_content": "hidden"}),
        HumanMessage('and now "quoted" text\twith a tab', name="user-1"),
    ]


@pytest.mark.parametrize("name", ["scripted-model", "o3-mini"])  # o-series: the "developer" role
def test_each_request_is_langchain_openai_s_own_and_converts_only_what_is_new(name: str) -> None:
    model = _model("http://127.0.0.1:9/v1", name)
    memo = model._message_memo
    history = _history()
    whole = ChatOpenAI._get_request_payload
    for step in range(len(history)):
        sent = [SystemMessage(f"system prompt at step {step}"), *history[: step + 1]]
        before = memo.converted
        assert model._get_request_payload(sent, stop=["END"]) == whole(model, sent, stop=["END"])
        assert memo.converted - before == 2  # the new system prompt and the new message
    rewritten = [*history[:3], history[3].model_copy(update={"content": "rewritten"}), *history[4:]]
    before = memo.converted
    assert model._get_request_payload(rewritten) == whole(model, rewritten)
    assert memo.converted - before == 1  # the copy only
    shorter = history[2:]  # the start summarised away: what stays is not converted again
    before = memo.converted
    assert model._get_request_payload(shorter) == whole(model, shorter)
    assert memo.converted - before == 0
    assert model._get_request_payload("a plain prompt") == whole(model, "a plain prompt")
    if name == "o3-mini":
        assert model._get_request_payload(history)["messages"][0]["role"] == "developer"


def test_another_model_name_or_the_responses_api_converts_afresh() -> None:
    model = _model("http://127.0.0.1:9/v1")
    history = _history()
    model._get_request_payload(history)
    renamed = model.model_copy(update={"model_name": "o3-mini"})  # shares the memo, not its dicts
    assert renamed._get_request_payload(history) == ChatOpenAI._get_request_payload(renamed, history)
    assert renamed._get_request_payload(history)["messages"][0]["role"] == "developer"
    responses = model.model_copy(update={"use_responses_api": True})
    payload = responses._get_request_payload(history)
    assert "input" in payload and "messages" not in payload
    assert payload == ChatOpenAI._get_request_payload(responses, history)


def test_a_message_list_is_taken_as_it_is_without_a_python_pass_over_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langchain_core.language_models import BaseChatModel, chat_models

    model, history = _model("http://127.0.0.1:9/v1"), _history()
    converted = [0]
    convert = chat_models.convert_to_messages
    monkeypatch.setattr(
        chat_models, "convert_to_messages", lambda m: converted.__setitem__(0, 1) or convert(m)
    )
    ours = model._convert_input(history)
    assert converted == [0] and ours.to_messages() == history
    assert all(a is b for a, b in zip(ours.to_messages(), history, strict=True))  # the same objects
    assert ours == BaseChatModel._convert_input(model, history) and converted == [1]
    for other in (
        "a prompt",
        [("human", "hi")],
        [*history, {"role": "user", "content": "x"}],
        tuple(history),
    ):
        assert model._convert_input(other) == BaseChatModel._convert_input(model, other)
