"""A tool set's schemas are converted once, not on every model call (auger.core.models.requests.tool_schemas),
and the requests on the wire are byte for byte what converting on every call sends."""

from __future__ import annotations

from typing import Any
from unittest import mock

from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langchain_openai.chat_models import base as openai_base

from auger.core.models.providers import build_chat_model
from auger.core.models.replies.complete_reply import watch
from auger.core.models.requests.tool_schemas import CachedToolBinding
from auger.core.models.specs import ModelSpec
from conftest_llm import ScriptedLLM

CALLS = 5


@tool
def grep(pattern: str, path: str | None = None, max_count: int | None = None) -> str:
    """Search file contents for a pattern."""
    return ""


@tool
def read_file(file_path: str, offset: int = 0, limit: int = 100) -> str:
    """Read a file — ünïcode in the description."""
    return ""


def _model(llm: ScriptedLLM) -> Any:
    return build_chat_model(ModelSpec(provider="local", model="scripted-model", base_url=llm.base_url), {})


def _uncached_bind(model: Any, tools: list[Any], **options: Any) -> Any:
    """What the provider class binds without the cache: its own bind_tools, converting each call."""
    return super(CachedToolBinding, model).bind_tools(tools, **options)


async def _turns(model: Any, bind: Any) -> int:
    """CALLS model calls the way the agent loop makes them (a watched copy per call, then
    `bind_tools`); the number of tool conversions they ran."""
    convert = openai_base.convert_to_openai_tool
    with mock.patch.object(openai_base, "convert_to_openai_tool", wraps=convert) as converted:
        for i in range(CALLS):
            call, _ = watch(model, share_loop=True)
            await bind(call, [grep, read_file], tool_choice=None).ainvoke([HumanMessage(f"call {i}")])
        return int(converted.call_count)


async def test_a_tool_set_is_converted_once_and_the_bytes_sent_are_unchanged(
    scripted_llm: ScriptedLLM,
) -> None:
    scripted_llm.add(*[{"text": "ok"}] * (2 * CALLS))
    cached = await _turns(_model(scripted_llm), lambda m, tools, **o: m.bind_tools(tools, **o))
    uncached = await _turns(_model(scripted_llm), _uncached_bind)
    assert cached == 2  # once per tool for all CALLS calls
    assert uncached == 2 * CALLS
    via_cache, converted_each_call = scripted_llm.bodies[:CALLS], scripted_llm.bodies[CALLS:]
    assert via_cache == converted_each_call
    assert b'"read_file"' in via_cache[-1] and b'"max_count"' in via_cache[-1]


def test_another_tool_set_or_option_is_bound_afresh() -> None:
    model = build_chat_model(ModelSpec(provider="local", model="m", base_url="http://127.0.0.1:9/v1"), {})
    one = model.bind_tools([grep]).kwargs["tools"]
    both = model.bind_tools([grep, read_file]).kwargs["tools"]
    forced = model.bind_tools([grep], tool_choice="grep").kwargs
    renamed = grep.model_copy(update={"name": "search"})
    assert [t["function"]["name"] for t in both] == ["grep", "read_file"]
    assert forced["tool_choice"] == {"type": "function", "function": {"name": "grep"}}
    assert model.bind_tools([renamed]).kwargs["tools"][0]["function"]["name"] == "search"
    assert model.bind_tools([grep]).kwargs["tools"] is one  # the same set again: the same schemas


def test_anthropic_binds_the_schemas_it_would_convert() -> None:
    spec = ModelSpec(provider="anthropic", model="claude-sonnet-4-5")
    model = build_chat_model(spec, {"ANTHROPIC_API_KEY": "k"})
    assert isinstance(model, CachedToolBinding)
    first = model.bind_tools([grep, read_file], tool_choice="auto").kwargs
    again, _ = watch(model)
    assert again.bind_tools([grep, read_file], tool_choice="auto").kwargs["tools"] is first["tools"]
    assert first == _uncached_bind(model, [grep, read_file], tool_choice="auto").kwargs


async def test_the_watched_copies_share_the_models_serialized_form(scripted_llm: ScriptedLLM) -> None:
    """Each model call reports the model to its callbacks as langchain's `dumpd` of it, kept on
    the instance; the watched copy per call (its callbacks differ, which that form leaves out)
    has the one made on the model instead of making its own (0.3-0.6 ms of every call)."""
    from langchain_core.language_models import chat_models
    from langchain_core.load import dumpd

    scripted_llm.add(*[{"text": "ok"}] * CALLS)
    model = _model(scripted_llm)
    with mock.patch.object(chat_models, "dumpd", wraps=dumpd) as serialized:
        copies = [watch(model, share_loop=True)[0] for _ in range(CALLS)]
        for i, call in enumerate(copies):
            await call.bind_tools([grep]).ainvoke([HumanMessage(f"call {i}")])
    assert serialized.call_count == 1
    assert all(c._serialized is model._serialized == dumpd(c) for c in copies)
