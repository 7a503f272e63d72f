"""ConfigurableModelMiddleware (model + params from the run context, spec tagging, pinning) and
ResumeStateMiddleware (`_context_tokens` / `_model_spec` in checkpointed state)."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from auger.core.agent.context import AugerContext
from auger.core.middleware.model.configurable_model import (
    SPEC_KEY,
    ConfigurableModelMiddleware,
    context_params,
)
from auger.core.middleware.model.resume_state import ResumeStateMiddleware, resume_update
from scripted_model import ScriptedChatModel


class Factory:
    """Builds one scripted model per (spec, params) and remembers every build."""

    def __init__(self) -> None:
        self.built: list[tuple[str, dict[str, Any]]] = []
        self.models: dict[str, ScriptedChatModel] = {}

    def __call__(self, spec: str, params: dict[str, Any]) -> ScriptedChatModel:
        self.built.append((spec, params))
        model = ScriptedChatModel(script=[f"from {spec}"] * 5, model_name=spec)
        self.models[spec] = model
        return model


def _agent(default: ScriptedChatModel, factory: Factory, **kw: Any) -> Any:
    middleware = [
        ResumeStateMiddleware(),
        ConfigurableModelMiddleware(factory, "local:default", **kw),
    ]  # as in the graph
    return create_agent(
        default, middleware=middleware, context_schema=AugerContext, checkpointer=InMemorySaver()
    )


CFG = {"configurable": {"thread_id": "t1"}}


def test_context_params_keeps_known_keys_with_values() -> None:
    ctx = AugerContext(
        model_params={"temperature": 0.2, "max_tokens": None, "bogus": 1, "reasoning_effort": "low"}
    )
    assert context_params(ctx) == {"temperature": 0.2, "reasoning_effort": "low"}
    assert context_params(None) == {}


def test_default_spec_uses_the_graph_model_and_tags_the_reply() -> None:
    default, factory = ScriptedChatModel(script=["hello"]), Factory()
    out = _agent(default, factory).invoke(
        {"messages": [HumanMessage("hi")]}, CFG, context=AugerContext(model_spec="local:default")
    )
    assert factory.built == [] and len(default.calls) == 1
    assert out["messages"][-1].response_metadata[SPEC_KEY] == "local:default"


def test_switch_between_turns_and_params_reach_the_factory() -> None:
    default, factory = ScriptedChatModel(script=["one"]), Factory()
    agent = _agent(default, factory)
    agent.invoke({"messages": [HumanMessage("1")]}, CFG, context=AugerContext(model_spec="local:default"))
    ctx = AugerContext(model_spec="other:big", model_params={"temperature": 0.1, "max_tokens": 99})
    out = agent.invoke({"messages": [HumanMessage("2")]}, CFG, context=ctx)
    agent.invoke({"messages": [HumanMessage("3")]}, CFG, context=ctx)
    assert factory.built == [("other:big", {"temperature": 0.1, "max_tokens": 99})]  # built once, cached
    assert [
        m.content for m in factory.models["other:big"].calls[0]["messages"] if isinstance(m, HumanMessage)
    ] == [
        "1",
        "2",
    ]  # the switched model sees the whole thread
    assert out["messages"][-1].content == "from other:big"
    assert out["messages"][-1].response_metadata[SPEC_KEY] == "other:big"
    values = agent.get_state(CFG).values
    assert values["_model_spec"] == "other:big" and values["_context_tokens"] == 110
    # params on the default spec also need a built model
    agent.invoke(
        {"messages": [HumanMessage("4")]},
        CFG,
        context=AugerContext(model_spec="local:default", model_params={"temperature": 0}),
    )
    assert factory.built[-1] == ("local:default", {"temperature": 0})


def test_pinned_spec_ignores_the_context_spec() -> None:
    default, factory = ScriptedChatModel(), Factory()
    out = _agent(default, factory, pinned="local:pinned").invoke(
        {"messages": [HumanMessage("hi")]}, CFG, context=AugerContext(model_spec="other:big")
    )
    assert [b[0] for b in factory.built] == ["local:pinned"]
    assert out["messages"][-1].response_metadata[SPEC_KEY] == "local:pinned"
    assert (
        ConfigurableModelMiddleware(factory, pinned="a:b").name != ConfigurableModelMiddleware(factory).name
    )


def test_resume_update_reads_usage_and_spec() -> None:
    reply = AIMessage("x", usage_metadata={"input_tokens": 900, "output_tokens": 100, "total_tokens": 1000})
    reply.response_metadata[SPEC_KEY] = "openai:gpt-4.1"
    assert resume_update({"messages": [reply]}, None, reply) == {
        "_context_tokens": 1000,
        "_model_spec": "openai:gpt-4.1",
    }
    same = {"messages": [reply], "_context_tokens": 1000, "_model_spec": "openai:gpt-4.1"}
    assert resume_update(same, None, reply) is None  # nothing new, no write
    untagged = AIMessage("y")
    assert resume_update({"messages": [untagged]}, AugerContext(model_spec="a:b"), untagged) == {
        "_model_spec": "a:b"
    }
    assert resume_update({"messages": [HumanMessage("q")]}, None, HumanMessage("q")) is None
