"""The thread's message list is grown by the written messages alone (auger.core.threads.messages_reducer):
the same lists as deepagents' own reducer for any writes, and in a real graph deepagents' whole-list
rebuild never runs on a list of messages: not at every write of every step, nor when a turn's state
is read back (its id index is then built in C)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents._messages_reducer import _messages_delta_reducer
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from auger.core.agent.context import AugerContext
from auger.core.threads import messages_reducer as reducer_module
from auger.core.threads.messages_reducer import id_index, messages_reducer
from auger.settings import Settings
from scripted_model import ScriptedChatModel
from session_helpers import offline_settings

# a write: ("new", n) n new messages, ("none", 0) one without an id, ("replace", k) the k-th
# message (mod length) by id, ("remove", k) a RemoveMessage of it, ("clear", 0) REMOVE_ALL,
# ("dict", 0) a raw dict message, ("branch", 0) the next write onto the list before the last,
# ("forget", 0) the next write onto a list the reducer no longer keeps (a thread read back)
WRITES = st.lists(
    st.tuples(
        st.sampled_from(["new", "none", "replace", "remove", "clear", "dict", "branch", "forget"]),
        st.integers(0, 5),
    ),
    max_size=25,
)


def _shape(messages: list[Any]) -> list[tuple[str, Any, Any]]:
    return [(m.type, m.id, m.content) for m in messages]


def _write(kind: str, k: int, current: list[Any], serial: list[int]) -> list[Any]:
    serial[0] += 1
    n = serial[0]
    if kind == "new":
        return [HumanMessage(f"m{n}.{i}", id=f"id{n}.{i}") for i in range(max(k, 1))]
    if kind in ("replace", "remove") and current:
        target = current[k % len(current)]
        if target.id is None:
            return [AIMessage(f"late {n}")]
        return [RemoveMessage(id=target.id)] if kind == "remove" else [AIMessage(f"edited {n}", id=target.id)]
    if kind == "clear":
        return [
            RemoveMessage(id=REMOVE_ALL_MESSAGES),
            ToolMessage(f"after {n}", tool_call_id="c", id=f"t{n}"),
        ]
    if kind == "dict":
        return [{"role": "user", "content": f"raw {n}", "id": f"raw{n}"}]
    return [AIMessage(f"no id {n}")]


@settings(max_examples=150, deadline=None)
@given(WRITES)
def test_the_lists_are_deepagents_own(writes: list[tuple[str, int]]) -> None:
    first = [HumanMessage("first", id="first")]
    ours: list[Any] = messages_reducer(None, [first])
    theirs: list[Any] = _messages_delta_reducer(None, [first])
    before_ours, before_theirs = ours, theirs
    serial = [0]
    branch = False
    for kind, k in writes:
        if kind == "branch":
            branch = True
            continue
        if kind == "forget":
            reducer_module._kept.clear()
            continue
        base_ours, base_theirs = (before_ours, before_theirs) if branch else (ours, theirs)
        write = _write(kind, k, base_theirs, serial)
        before_ours, before_theirs = base_ours, base_theirs
        ours = messages_reducer(base_ours, [write])
        theirs = _messages_delta_reducer(base_theirs, [write])
        assert _shape(ours) == _shape(theirs)
        # the very message objects (but those each reducer converted from a raw dict itself)
        assert all(a is b or str(a.id).startswith("raw") for a, b in zip(ours, theirs, strict=True))
        branch = False


def test_writes_onto_a_kept_list_do_not_rebuild_it(monkeypatch: pytest.MonkeyPatch) -> None:
    history = messages_reducer(None, [[HumanMessage(f"m{i}", id=f"m{i}") for i in range(1_000)]])
    rebuilt = _counting(monkeypatch)
    grown = messages_reducer(
        history, [[AIMessage("reply", id="r")], ToolMessage("out", tool_call_id="c", id="t")]
    )
    again = messages_reducer(history, [[AIMessage("another reply", id="r2")]])  # the same base twice
    edited = messages_reducer(grown, [[AIMessage("edited", id="r")]])
    assert rebuilt == [] and len(grown) == 1_002 and len(again) == 1_001 and len(edited) == 1_002
    assert edited[1_000].content == "edited" and grown[1_000].content == "reply"  # the base is kept
    history.append(HumanMessage("changed in place", id="x"))  # not ours any more: indexed anew
    assert [m.id for m in messages_reducer(history, [[AIMessage("r3", id="r3")]])[-3:]] == ["m999", "x", "r3"]
    read_back = [*grown]  # a list it never returned (a thread's snapshot, decoded): indexed in C
    reducer_module._kept.clear()
    replayed = messages_reducer(read_back, [[AIMessage("edited", id="r"), HumanMessage("next", id="n")]])
    assert [m.content for m in replayed[-3:]] == ["edited", "out", "next"] and len(replayed) == 1_003
    assert rebuilt == []  # deepagents' Python pass over the whole list ran for none of them


def test_a_list_read_back_again_is_indexed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each turn starts from the thread's snapshot, decoded into a new list of the same messages
    (the serializer remembers it): its id index is built once and copied at the next turns."""
    messages = [HumanMessage(f"m{i}", id=f"m{i}") for i in range(1_000)]
    indexed: list[int] = []

    def counted(base: list[Any]) -> dict[str, int]:
        indexed.append(len(base))
        return id_index(base)

    monkeypatch.setattr(reducer_module, "id_index", counted)
    reducer_module._kept.clear()
    reducer_module._bases.clear()
    for turn in range(3):
        grown = messages_reducer([*messages], [[HumanMessage(f"q{turn}", id=f"q{turn}")]])
        assert [m.id for m in grown[-2:]] == ["m999", f"q{turn}"] and len(grown) == 1_001
    assert indexed == [1_000]
    swapped = [*messages[:-2], HumanMessage("other", id="m0"), messages[-1]]  # same length and end
    grown = messages_reducer(swapped, [[AIMessage("edited", id="m0")]])
    assert indexed == [1_000, 1_000]  # not taken for the list read back before: indexed anew
    assert grown[998].content == "edited" and grown[0].content == "m0" and len(grown) == 1_000


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each list deepagents' reducer is called to rebuild."""
    rebuilt: list[int] = []

    def counted(state: Any, writes: Any) -> Any:
        rebuilt.append(len(state or []))
        return _messages_delta_reducer(state, writes)

    monkeypatch.setattr(reducer_module, "_messages_delta_reducer", counted)
    return rebuilt


@pytest.fixture
def agent_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return offline_settings(tmp_path, monkeypatch)


async def test_a_graph_rebuilds_the_list_only_when_a_turn_reads_it_back(
    agent_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auger.core.agent.graph import create_cli_agent
    from auger.core.threads.checkpoints.checkpointer import open_checkpointer

    steps, turns = 15, 4
    ls = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}
    script = [item for i in range(turns) for item in [*[ls] * steps, f"answer {i}"]]
    saver, conn = await open_checkpointer(tmp_path / "threads.db")
    graph = create_cli_agent(agent_settings, model=ScriptedChatModel(script=script), checkpointer=saver)
    assert graph.channels["messages"].reducer is messages_reducer
    rebuilt = _counting(monkeypatch)
    cfg = {"configurable": {"thread_id": "t"}}
    try:
        per_turn = []
        for i in range(turns):
            before = len(rebuilt)
            await graph.ainvoke(
                {"messages": [HumanMessage(f"question {i}")]}, cfg, context=AugerContext(mode="yolo")
            )
            per_turn.append(len(rebuilt) - before)
        messages = (await graph.aget_state(cfg)).values["messages"]
    finally:
        await conn.close()
    assert len(messages) == turns * (2 + 2 * steps)
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == [
        f"question {i}" for i in range(turns)
    ]
    # each turn writes messages ~3 times a step (31 model and tool steps), and the turn's state comes
    # back from the checkpoint (the list decoded, the writes since replayed onto it): deepagents'
    # pass over the whole list never runs, only onto an empty one (the thread's first write)
    assert all(n == 0 for n in rebuilt) and per_turn[0] >= 1, (rebuilt, per_turn)
