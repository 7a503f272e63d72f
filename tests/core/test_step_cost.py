"""What each agent step costs in graph machinery (issue 16 item 1): the main graph runs a model step
and a tools step per agent step (no hook nodes), and langsmith's bookkeeping around each
middleware hook does not hop threads while nobody traces — but still does when tracing is on."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from auger.core.agent.context import AugerContext
from auger.settings import Settings
from llm_server import ScriptedLLM
from scripted_model import ScriptedChatModel
from session_helpers import offline_settings, scripted_settings


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return offline_settings(tmp_path, monkeypatch)


def test_the_main_graph_has_no_hook_node_around_the_model_call(settings: Settings) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent

    model = ScriptedChatModel(script=["ok"])
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    nodes = list(graph.get_graph().nodes)
    # the turn limit (which also ends a turn after an unaccepted plan) rides on the model call;
    # the approval prompts on the tool call (ApprovalGateMiddleware); skills are pinned once per
    # run (before_agent); the project-facts note, the resume state and the todo check ride on
    # the model call too
    assert [n for n in nodes if n.endswith((".before_model", ".after_model"))] == []
    cfg = {"configurable": {"thread_id": "t"}}
    out = graph.invoke({"messages": [HumanMessage("hi")]}, cfg, context=AugerContext(mode="yolo"))
    assert out["messages"][-1].content == "ok"
    facts = graph.get_state(cfg).values["_local_context"]  # detected and kept, without a node
    sent = next(m for m in model.calls[0]["messages"] if m.type == "human")
    assert facts and facts in str(sent.content)


def _steps(graph: Any, payload: Any, cfg: dict[str, Any], mode: str) -> list[str]:
    """The graph steps (task names) one run of `graph` takes, run hooks left out."""
    events = graph.stream(payload, cfg, context=AugerContext(mode=mode), stream_mode="tasks")
    names = [e["name"] for e in events if "input" in e]  # a task's start (its end has "result")
    return [n for n in names if not n.endswith((".before_agent", ".after_agent"))]


def test_each_agent_step_is_a_model_step_and_a_tools_step(settings: Settings) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent

    ls = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}
    graph = create_cli_agent(
        settings, model=ScriptedChatModel(script=[ls, ls, ls, "done"]), checkpointer=InMemorySaver()
    )
    cfg = {"configurable": {"thread_id": "t"}}
    steps = _steps(graph, {"messages": [HumanMessage("look")]}, cfg, "yolo")
    assert steps == ["model", "tools"] * 3 + ["model"]  # before: 4 per step (turn limit, HITL too)
    assert graph.get_state(cfg).values["messages"][-1].content == "done"


def test_the_turn_limit_still_ends_the_turn_without_a_model_call(settings: Settings) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent
    from auger.core.middleware.model.turn_limit import TURN_LIMIT_FLAG

    ls = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}
    model = ScriptedChatModel(script=[ls, ls, ls, "done"])
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    ctx = AugerContext(mode="yolo", max_turns=2)
    out = graph.invoke({"messages": [HumanMessage("look")]}, cfg, context=ctx)
    last = out["messages"][-1]
    assert len(model.calls) == 2 and last.additional_kwargs.get(TURN_LIMIT_FLAG)
    assert "limit of 2 model calls" in str(last.content) and not last.tool_calls


def test_parallel_calls_that_need_approval_ask_as_they_start_in_hitls_own_terms(
    settings: Settings,
) -> None:
    """The approval prompts ask in the tool call (ApprovalGateMiddleware): one interrupt per call
    needing approval, each HITL's own request for it; a reject is HITL's own refusal."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from auger.core.agent.graph import create_cli_agent

    project = settings.project_root
    write = [{"name": "write_file", "args": {"file_path": f"/{n}.txt", "content": n}} for n in "ab"]
    model = ScriptedChatModel(
        script=[{"tool_calls": [*write, {"name": "ls", "args": {"path": "/"}}]}, "done"]
    )
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    ctx = AugerContext(mode="manual")
    graph.invoke({"messages": [HumanMessage("write")]}, cfg, context=ctx)
    asked = graph.get_state(cfg).interrupts
    assert len(asked) == 2  # batched HITL: one interrupt listing both
    by_file = {}
    for intr in asked:
        [action] = intr.value["action_requests"]
        assert intr.value["review_configs"] == [
            {"action_name": "write_file", "allowed_decisions": ["approve", "reject"]}
        ]
        assert action["name"] == "write_file" and action["description"]
        by_file[action["args"]["file_path"]] = intr.id
    assert sorted(by_file) == ["/a.txt", "/b.txt"] and not (project / "a.txt").exists()
    resume = {
        by_file["/a.txt"]: {"decisions": [{"type": "reject", "message": "not that one"}]},
        by_file["/b.txt"]: {"decisions": [{"type": "approve"}]},
    }
    out = graph.invoke(Command(resume=resume), cfg, context=ctx)
    results = {m.tool_call_id: m for m in out["messages"] if m.type == "tool"}
    calls = {c["args"].get("file_path", "ls"): c["id"] for c in out["messages"][1].tool_calls}
    refusal = results[calls["/a.txt"]]
    assert refusal.status == "error"
    assert refusal.content == "User rejected the tool call for `write_file` with reason: not that one"
    assert not (project / "a.txt").exists() and (project / "b.txt").read_text() == "b"
    assert results[calls["ls"]].status == "success" and out["messages"][-1].content == "done"


def _hops_thread(traced: bool | None) -> bool:
    """Whether langsmith's `aio_to_thread` (what `traceable` awaits around each middleware hook)
    runs its function on another thread, with auger's override installed. `traced` as a user's
    `tracing_context(enabled=...)` sets it (LANGSMITH_TRACING=true is read into the same check)."""
    from langsmith import tracing_context
    from langsmith._internal._aiter import aio_to_thread

    from auger.core.agent.tracing import inline_when_untraced

    inline_when_untraced()

    async def main() -> bool:
        loop_thread = threading.get_ident()
        with tracing_context(enabled=traced):
            ran_on = await aio_to_thread(contextvars.copy_context(), threading.get_ident)
        return bool(ran_on != loop_thread)

    return asyncio.run(main())


def test_untraced_hook_bookkeeping_stays_on_the_event_loop() -> None:
    assert _hops_thread(False) is False


def test_traced_hook_bookkeeping_still_goes_to_a_thread() -> None:
    assert _hops_thread(True) is True


class _LangSmithSink:
    """A stand-in LangSmith endpoint on 127.0.0.1: it accepts every request and keeps the bodies."""

    def __init__(self) -> None:
        import http.server

        bodies = self.bodies = []  # type: list[bytes]

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                bodies.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            do_POST = do_PATCH = do_GET = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def _hook_runs(settings: Settings, traced: bool | None) -> tuple[list[str], bytes]:
    """The runs langsmith set up around middleware hooks in one two-step run (their names), and
    what reached the LangSmith endpoint."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langsmith import Client, run_helpers, tracing_context

    from auger.core.agent.graph import create_cli_agent

    sink = _LangSmithSink()
    client = Client(api_url=sink.url, api_key="test-key")
    ls = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}
    model = ScriptedChatModel(script=[ls, "done"])
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    names: list[str] = []
    setup = run_helpers._setup_run

    def counting(func: Any, container_input: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(str(container_input.get("name")))
        return setup(func, container_input, *args, **kwargs)

    async def run() -> Any:
        with tracing_context(enabled=traced, client=client):
            payload = {"messages": [HumanMessage("look")]}
            cfg = {"configurable": {"thread_id": "t"}}
            return await graph.ainvoke(payload, cfg, context=AugerContext(mode="yolo"))

    run_helpers._setup_run = counting  # type: ignore[assignment]
    try:
        out = asyncio.run(run())
    finally:
        run_helpers._setup_run = setup  # type: ignore[assignment]
        client.flush()
        sink.server.shutdown()
    assert out["messages"][-1].content == "done"
    return names, b"".join(sink.bodies)


def test_untraced_middleware_hooks_set_up_no_langsmith_run_but_traced_ones_still_do(
    settings: Settings,
) -> None:
    """langchain wraps every middleware hook in `traceable`; untraced, auger calls the hook itself
    (~230 Python calls a layer fewer); traced, langsmith's wrapper runs and the spans are sent."""
    assert _hook_runs(settings, None) == ([], b"") and _hook_runs(settings, False) == ([], b"")
    names, sent = _hook_runs(settings, True)
    model_hooks = [n for n in names if n.endswith(".awrap_model_call")]
    assert model_hooks and any(n.endswith(".awrap_tool_call") for n in names), names
    assert all(n.encode() in sent for n in model_hooks)  # the hook spans reach LangSmith


def test_data_block_types_are_computed_once_with_the_same_answer() -> None:
    from unittest import mock

    from langchain_core.messages import content

    from auger.core.models.content_types import cache_block_types

    before = content._get_data_content_block_types  # maybe cached already by an earlier test's model
    original = getattr(before, "__wrapped__", before)
    expected = original()
    content._get_data_content_block_types = original
    cache_block_types()
    try:
        blocks = [{"type": "text", "text": "x"}, {"type": "image", "base64": "AA", "mime_type": "image/png"}]
        with mock.patch.object(content, "get_type_hints", wraps=content.get_type_hints) as hints:
            answers = [content.is_data_content_block(b) for b in blocks * 50]
            calls = hints.call_count
        assert answers == [False, True] * 50
        assert content._get_data_content_block_types() == expected
        assert 0 < calls <= 10  # one pass over the block TypedDicts, not one per block (500 without)
    finally:
        content._get_data_content_block_types = before


def test_a_pinned_skill_is_in_the_thread_before_the_first_model_call(settings: Settings) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent

    skill = settings.home / "skills" / "house-style" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: house-style\ndescription: How we write.\n---\n\nTabs, never spaces.\n")
    model = ScriptedChatModel(script=["first", "second"])
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    ctx = AugerContext(mode="yolo")
    graph.invoke({"messages": [HumanMessage("hi")], "pinned_skills": ["house-style"]}, cfg, context=ctx)
    graph.invoke({"messages": [HumanMessage("again")]}, cfg, context=ctx)
    first, second = ([str(m.content) for m in call["messages"] if m.type == "human"] for call in model.calls)
    assert [m for m in first if "Tabs, never spaces." in m] and "hi" in first[0]
    assert sum("Tabs, never spaces." in m for m in second) == 1  # pinned once, kept in the thread
    assert graph.get_state(cfg).values.get("pinned_skills") == []


async def test_file_tools_where_no_folder_memory_is_look_up_no_memory_slots(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    from unittest import mock

    from auger.core.middleware.tools import folder_memory
    from auger.core.port import TurnOptions
    from auger.core.runtime import open_session

    settings = scripted_settings(tmp_path, scripted_llm)
    (settings.project_root / "plain").mkdir()
    (settings.project_root / "sub").mkdir()
    (settings.project_root / "sub" / "AGENTS.md").write_text("Sub rule.\n")
    calls = [("/", "c1"), ("/plain", "c2"), ("/", "c3"), ("/sub", "c4")]
    scripted_llm.add(
        *[{"tool_calls": [{"name": "ls", "args": {"path": p}, "id": i}]} for p, i in calls], "done"
    )
    session = await open_session(settings)
    try:
        with mock.patch.object(folder_memory, "memory_files", wraps=folder_memory.memory_files) as slots:
            async for _ in session.send("go", TurnOptions("yolo")):
                pass
    finally:
        await session.aclose()
    assert slots.call_count == 1  # only for the folder that has a memory file
    last, earlier = scripted_llm.bodies[-1], scripted_llm.bodies[-2]
    assert b"Sub rule." in last and b"Sub rule." not in earlier


def test_parallel_write_todos_calls_are_refused_right_after_the_reply(settings: Settings) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent

    todo = {"todos": [{"content": "x", "status": "pending"}]}
    calls = [
        {"name": "write_todos", "args": todo, "id": "t1"},
        {"name": "ls", "args": {"path": "/"}, "id": "l1"},
        {"name": "write_todos", "args": todo, "id": "t2"},
    ]
    model = ScriptedChatModel(script=[{"tool_calls": calls}, "done"])
    graph = create_cli_agent(settings, model=model, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out = graph.invoke({"messages": [HumanMessage("hi")]}, cfg, context=AugerContext(mode="yolo"))
    after = [
        (m.type, getattr(m, "tool_call_id", None), getattr(m, "status", None)) for m in out["messages"][1:]
    ]
    assert after == [
        ("ai", None, None),
        ("tool", "t1", "error"),
        ("tool", "t2", "error"),
        ("tool", "l1", "success"),
        ("ai", None, None),
    ]
    assert "never be called multiple times in parallel" in str(out["messages"][2].content)
    assert not out.get("todos")
