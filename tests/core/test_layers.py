"""auger's light middlewares run as one layer per run of them (auger.core.middleware.layers): fewer
wrapper layers (each a langsmith `traceable`) around each model call and tool call, the same
order, the same requests on the wire and the same thread state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware import AgentMiddleware
from langgraph.checkpoint.memory import InMemorySaver

from auger.core.middleware.layers import Layers, layered
from auger.core.port import TurnOptions
from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import scripted_settings


def _overrides(m: Any, hook: str) -> bool:
    cls = type(m)
    return getattr(cls, hook) is not getattr(AgentMiddleware, hook) or getattr(
        cls, f"a{hook}"
    ) is not getattr(AgentMiddleware, f"a{hook}")


def _main_stack(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The middleware list deepagents hands langchain's create_agent for the main agent."""
    import deepagents.graph

    from auger.core.agent.graph import create_cli_agent

    seen: list[list[Any]] = []
    original = deepagents.graph.create_agent

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(list(kwargs["middleware"]))
        return original(*args, **kwargs)

    monkeypatch.setattr(deepagents.graph, "create_agent", spy)
    create_cli_agent(settings, checkpointer=InMemorySaver())
    return seen[-1]  # the subagents' graphs are built first


def test_each_step_runs_nine_model_call_and_three_tool_call_layers(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack = _main_stack(scripted_settings(tmp_path, scripted_llm), monkeypatch)
    model_layers = [m.name for m in stack if _overrides(m, "wrap_model_call")]
    tool_layers = [m.name for m in stack if _overrides(m, "wrap_tool_call")]
    # before: 20 and 11 (auger's own 13 + 8 of them and the todo list, one each); the approval
    # prompts ask inside auger's run (ApprovalGateMiddleware), not in HITL's layer of their own
    assert len(model_layers) == 9 and len(tool_layers) == 3
    assert "HumanInTheLoopMiddleware" not in [m.name for m in stack]
    merged = [m for m in stack if isinstance(m, Layers)]
    assert [m.name for m in merged] == ["Layers[TurnLimitMiddleware..ContextMeter]"]
    members = [type(m).__name__ for layer in merged for m in layer.members]
    assert members == [  # the documented order (auger.core.agent.graph)
        *("TurnLimitMiddleware", "ResumeStateMiddleware", "ConfigurableModelMiddleware"),
        *("ProviderHistoryMiddleware", "WireContentMiddleware", "ImageInputsMiddleware"),
        "LocalContextMiddleware",
        *(
            "TodoListInCall",
            "CompactPromptMiddleware",
            "SituationMiddleware",
            "ApprovalGateMiddleware",
            "HooksMiddleware",
            "PermissionMiddleware",
            "RedactionMiddleware",
        ),
        *("ToolResultsMiddleware", "ClientToolsMiddleware", "TurnToolsMiddleware", "PlanModeMiddleware"),
        *("FolderMemoryMiddleware", "RewindMiddleware", "BackgroundMiddleware", "ContextMeter"),
    ]
    assert "present_plan" in [t.name for t in merged[0].tools]  # the members' tools stay offered


SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "ls", "args": {"path": "/"}, "id": "call_ls"}]},
    {
        "tool_calls": [
            {
                "name": "write_todos",
                "args": {"todos": [{"content": "x", "status": "pending"}]},
                "id": "call_todo",
            }
        ]
    },
    {
        "tool_calls": [
            {
                "name": "write_file",
                "args": {"file_path": "/sub/new.txt", "content": "hi\n"},
                "id": "call_write",
            }
        ]
    },
    {"tool_calls": [{"name": "read_file", "args": {"file_path": "/missing.txt"}, "id": "call_missing"}]},
    {"text": "done", "prompt_tokens": 1234},
]


async def _turn(settings: Any) -> dict[str, Any]:
    session = await open_session(settings)
    try:
        async for _ in session.send("go", TurnOptions("yolo")):
            pass
        state = await session.runtime.graph.aget_state({"configurable": {"thread_id": session.thread_id}})
    finally:
        await session.aclose()
    return dict(state.values)


def _comparable(values: dict[str, Any]) -> dict[str, Any]:
    messages = [
        (m.type, m.content, getattr(m, "tool_calls", None), getattr(m, "status", None))
        for m in values["messages"]
    ]
    return {**{k: v for k, v in values.items() if k != "messages"}, "messages": messages}


async def test_merged_layers_send_the_same_requests_and_keep_the_same_state(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = scripted_settings(tmp_path, scripted_llm)
    (settings.project_root / "sub").mkdir()
    (settings.project_root / "sub" / "AGENTS.md").write_text("Folder rule.\n")  # FolderMemory's note
    scripted_llm.add(*SCRIPT)
    merged = await _turn(settings)
    (settings.project_root / "sub" / "new.txt").unlink()
    import auger.core.middleware.layers

    monkeypatch.setattr(auger.core.middleware.layers, "layered", list)  # each middleware its own layer
    scripted_llm.add(*SCRIPT)
    one_each = await _turn(settings)
    n = len(SCRIPT)
    assert len(scripted_llm.bodies) == 2 * n
    assert scripted_llm.bodies[:n] == scripted_llm.bodies[n:]
    assert _comparable(merged) == _comparable(one_each)
    assert merged["_context_tokens"] and merged["_model_spec"] == "local:scripted-model"  # commands kept
    assert merged["todos"] == [{"content": "x", "status": "pending"}]
    assert b"Folder rule." in scripted_llm.bodies[3] and b"Local context" in scripted_llm.bodies[0]


def test_a_run_of_one_stays_and_a_node_only_middleware_follows_its_run() -> None:
    from langchain.agents.middleware import TodoListMiddleware

    from auger.core.middleware.model.image_inputs import ImageInputsMiddleware
    from auger.core.middleware.model.wire_content import WireContentMiddleware

    class NodeOnly(AgentMiddleware):  # type: ignore[type-arg]
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    todos, limit, wire = TodoListMiddleware(), NodeOnly(), WireContentMiddleware()
    assert layered([todos, wire, limit]) == [todos, wire, limit]
    images = ImageInputsMiddleware()
    merged, after = layered([wire, limit, images])
    assert isinstance(merged, Layers) and merged.members == (wire, images) and after is limit
