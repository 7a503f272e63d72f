"""What a turn costs as the thread grows (issue 16 item 2): work that was O(history) per turn or
per model call is done once per message — the thread's messages decoded once per process, the
unsupported-content check and the summarization trigger's token count once per message."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from auger.core.agent.context import AugerContext
from auger.core.threads.backend import ThreadDatabase
from auger.core.threads.checkpoints.message_serde import MessageMemoSerializer
from auger.settings import Settings
from scripted_model import ScriptedChatModel
from session_helpers import offline_settings


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return offline_settings(tmp_path, monkeypatch)


class CountingSerializer(MessageMemoSerializer):
    """Counts the messages really decoded (not answered from the memo)."""

    decoded = 0

    def _memo_hook(self, decode: Callable[[int, bytes], Any]) -> Callable[[int, bytes], Any]:
        def counting(code: int, data: bytes) -> Any:
            value = decode(code, data)
            if isinstance(value, BaseMessage):
                type(self).decoded += 1
            return value

        return super()._memo_hook(counting)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> ThreadDatabase:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else ""
    return ThreadDatabase(tmp_path / "threads", url)


async def test_a_reloaded_thread_decodes_only_the_messages_it_has_not_met(
    settings: Settings, database: ThreadDatabase
) -> None:
    from auger.core.agent.graph import create_cli_agent
    from auger.core.threads.checkpoints.checkpointer import open_saver

    database.home.mkdir()
    saver, closer = await open_saver(database)
    assert isinstance(saver.serde, MessageMemoSerializer)  # what auger runs with, on both databases
    saver.serde = CountingSerializer()
    turns = 8
    graph = create_cli_agent(
        settings,
        model=ScriptedChatModel(script=[f"answer {i}" for i in range(turns + 1)]),
        checkpointer=saver,
    )
    cfg = {"configurable": {"thread_id": "t"}}
    ctx = AugerContext(mode="yolo")
    try:
        for i in range(turns):
            await graph.ainvoke({"messages": [HumanMessage(f"question {i}")]}, cfg, context=ctx)
        first = (await graph.aget_state(cfg)).values["messages"]
        assert len(first) == 2 * turns
        CountingSerializer.decoded = 0
        again = (await graph.aget_state(cfg)).values["messages"]
        assert CountingSerializer.decoded == 0  # without the memo: every message again, each time
        assert all(a is b for a, b in zip(again, first, strict=True))
        await graph.ainvoke({"messages": [HumanMessage("one more")]}, cfg, context=ctx)
        CountingSerializer.decoded = 0
        grown = (await graph.aget_state(cfg)).values["messages"]
        assert len(grown) == 2 * turns + 2
        assert CountingSerializer.decoded <= 2  # the new question and answer at most
        plain = copy.copy(saver)  # the same thread, decoded afresh
        plain.serde = JsonPlusSerializer()
        fresh = (await graph.with_config(checkpointer=plain).aget_state(cfg)).values["messages"]
        assert [m.model_dump() for m in fresh] == [m.model_dump() for m in grown]
    finally:
        await closer.close()


def test_the_memo_starts_over_past_its_limit() -> None:
    serde = MessageMemoSerializer(limit=2_000)
    for i in range(40):
        serde.loads_typed(serde.dumps_typed([HumanMessage(f"message {i} " + "x" * 100, id=str(i))]))
    assert 0 < sum(len(data) for _, data in serde.memo) <= 2_000
    values = serde.loads_typed(serde.dumps_typed({"s": {1, 2}, "d": {"k": [1]}}))
    assert values == {"s": {1, 2}, "d": {"k": [1]}} and all(
        isinstance(m, BaseMessage) for m in serde.memo.values()
    )


def test_the_messages_of_a_delta_snapshot_are_remembered_too() -> None:
    """A delta channel's snapshot (written every 100 updates) holds the whole message list."""
    from langgraph.checkpoint.serde.types import _DeltaSnapshot

    CountingSerializer.decoded = 0
    serde = CountingSerializer()
    blob = serde.dumps_typed(
        {"messages": _DeltaSnapshot([HumanMessage(f"m{i}", id=str(i)) for i in range(5)])}
    )
    first = serde.loads_typed(blob)["messages"]
    assert isinstance(first, _DeltaSnapshot) and CountingSerializer.decoded == 5
    again = serde.loads_typed(blob)["messages"]
    assert CountingSerializer.decoded == 5 and all(
        a is b for a, b in zip(again.value, first.value, strict=True)
    )
    assert [m.content for m in again.value] == [f"m{i}" for i in range(5)]
    assert again.value is not first.value and serde.snapshot_hits == 1  # remembered whole, a new list
    assert serde.looked_up == 5  # the second load looked up none of its messages one by one
    other = serde.loads_typed(
        serde.dumps_typed({"messages": _DeltaSnapshot([*first.value[:4], HumanMessage("x")])})
    )
    assert [m.content for m in other["messages"].value] == ["m0", "m1", "m2", "m3", "x"]
    assert serde.snapshot_hits == 1 and CountingSerializer.decoded == 6  # other bytes: decoded


def _kinds() -> list[BaseMessage]:
    from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

    call = {"name": "ls", "args": {"path": "/"}, "id": "c1"}
    return [
        SystemMessage("system", id="s"),
        HumanMessage([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}]),
        AIMessage(
            "",
            tool_calls=[call],
            id="a",
            usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        ),
        ToolMessage("/bin /etc", tool_call_id="c1", name="ls", id="t", artifact={"n": {1, 2}}),
        AIMessage("done", id="b", response_metadata={"finish_reason": "stop"}),
    ]


def test_a_snapshot_is_langgraphs_bytes_packed_from_the_kept_encodings() -> None:
    """Every 50 writes LangGraph stores the whole message list: each message is encoded once —
    by the write that stored it, or kept from the bytes it was decoded from — not again then."""
    from langgraph.checkpoint.serde.types import _DeltaSnapshot

    plain, serde = JsonPlusSerializer(), MessageMemoSerializer()
    written, (unseen,) = _kinds(), _kinds()[-1:]
    for message in written[:-1]:  # the writes: LangGraph's bytes
        assert serde.dumps_typed([message]) == plain.dumps_typed([message])
    (decoded,) = serde.loads_typed(plain.dumps_typed([written[-1]]))
    assert serde.encoded_anew == len(written) - 1
    messages = [*written[:-1], decoded]
    for snapshot in (_DeltaSnapshot(messages), _DeltaSnapshot([*messages, unseen])):
        checkpoint = {"v": 4, "channel_values": {"messages": snapshot, "files": _DeltaSnapshot({"f": 1})}}
        assert serde.dumps_typed(checkpoint) == plain.dumps_typed(checkpoint)  # SQLite's blob
        assert serde.dumps_typed(snapshot) == plain.dumps_typed(snapshot)  # PostgreSQL's
    assert serde.encoded_anew == len(written)  # the message never written nor read: once
    hits = serde.snapshot_hits
    assert [m.content for m in serde.loads_typed(serde.dumps_typed(snapshot)).value] == [
        m.content for m in snapshot.value
    ]
    assert serde.snapshot_hits == hits + 1  # what it stored is read back without unpacking it


def test_a_message_changed_in_place_is_snapshotted_as_it_was_last_written() -> None:
    """As LangGraph's replay of the writes between snapshots gives it; written again, as it is."""
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.serde.types import _DeltaSnapshot

    plain, serde = JsonPlusSerializer(), MessageMemoSerializer()
    message = AIMessage("first", id="a")
    serde.dumps_typed([message])
    message.content = "second"
    (kept,) = plain.loads_typed(serde.dumps_typed(_DeltaSnapshot([message]))).value
    assert kept.content == "first"
    (rewritten,) = plain.loads_typed(serde.dumps_typed([message]))
    (snapshotted,) = plain.loads_typed(serde.dumps_typed(_DeltaSnapshot([message]))).value
    assert rewritten.content == snapshotted.content == "second"


async def test_a_turn_s_start_looks_up_only_the_messages_written_since_the_thread_s_snapshot(
    settings: Settings, tmp_path: Path
) -> None:
    """LangGraph rebuilds the messages from the newest snapshot (every `SNAPSHOT_FREQUENCY`
    writes) and the writes since: the snapshot comes back whole from the memo."""
    from auger.core.agent.graph import create_cli_agent
    from auger.core.threads.checkpoints.checkpointer import open_checkpointer
    from auger.core.threads.messages_reducer import SNAPSHOT_FREQUENCY

    saver, conn = await open_checkpointer(tmp_path / "threads.db")
    turns = SNAPSHOT_FREQUENCY - 10  # two writes a turn: a snapshot at turn ~25, read back since
    graph = create_cli_agent(
        settings, model=ScriptedChatModel(script=[f"answer {i}" for i in range(turns)]), checkpointer=saver
    )
    cfg = {"configurable": {"thread_id": "t"}}
    serde = saver.serde
    try:
        for i in range(turns):
            await graph.ainvoke(
                {"messages": [HumanMessage(f"question {i}")]}, cfg, context=AugerContext(mode="yolo")
            )
        hits, looked = serde.snapshot_hits, serde.looked_up
        messages = (await graph.aget_state(cfg)).values["messages"]
        after = serde.snapshot_hits, serde.looked_up
        async with conn.execute("SELECT type, checkpoint FROM checkpoints") as rows:
            stored = [JsonPlusSerializer().loads_typed(tuple(row)) for row in await rows.fetchall()]
    finally:
        await conn.close()
    # the snapshot as LangGraph's own serializer reads it: the thread's first messages
    (snapshot,) = [c["channel_values"]["messages"].value for c in stored if "messages" in c["channel_values"]]
    assert len(snapshot) >= SNAPSHOT_FREQUENCY - 2
    assert [m.model_dump() for m in snapshot] == [m.model_dump() for m in messages[: len(snapshot)]]
    assert len(messages) == 2 * turns and after[0] == hits + 1
    assert serde.encoded_anew == 2 * turns  # each message once, by its write: none at the snapshot
    # the messages written since the snapshot, not the ones in it too (~95 without the memo)
    assert after[1] - looked <= SNAPSHOT_FREQUENCY, after[1] - looked


def _request(model: Any, messages: list[Any]) -> Any:
    from langchain.agents.middleware import ModelRequest

    return ModelRequest(
        model=model,
        messages=messages,
        system_message=None,
        tool_choice=None,
        tools=[],
        response_format=None,
        state={"messages": messages},
        runtime=None,  # type: ignore[arg-type]
    )


def test_unsupported_content_converts_only_the_messages_that_are_not_plain_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deepagents.middleware.unsupported_content import UnsupportedContentMiddleware
    from langchain_core.messages import ToolMessage

    from auger.core.middleware.model.unsupported_content import TextAwareUnsupportedContent

    model = ScriptedChatModel(script=[])
    model.profile = {"image_inputs": False, "image_tool_message": False}
    image = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}
    history: list[Any] = []
    for i in range(100):
        history += [HumanMessage(f"question {i}"), ToolMessage(f"result {i}", tool_call_id=f"c{i}")]
    history += [
        HumanMessage([{"type": "text", "text": "and this"}, image]),
        ToolMessage([image], tool_call_id="img", additional_kwargs={"read_file_path": "/a.png"}),
        HumanMessage([{"type": "text", "text": "text blocks only"}, "and a string"]),
    ]
    converted: list[Any] = []
    blocks = BaseMessage.content_blocks
    monkeypatch.setattr(
        BaseMessage, "content_blocks", property(lambda m: converted.append(m) or blocks.fget(m))
    )
    sdk = UnsupportedContentMiddleware()._filter_request(_request(model, history)).messages
    assert len(converted) == len(history)  # the SDK: every human and tool message, every call
    converted.clear()
    ours = TextAwareUnsupportedContent()
    assert ours.name == "UnsupportedContentMiddleware"  # takes the SDK's slot
    shaped = ours._filter_request(_request(model, history)).messages
    assert converted == history[-3:-1]  # the two with an image only
    assert [m.model_dump() for m in shaped] == [m.model_dump() for m in sdk]  # the same request
    assert "does not support image" in str(shaped[-2].content) and shaped[:-3] == history[:-3]


def test_the_main_graph_runs_the_remembering_check_in_the_sdk_slot(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepagents.middleware.unsupported_content import UnsupportedContentMiddleware
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.graph import create_cli_agent
    from auger.core.middleware.history_scans import RememberedUnsupportedContent

    ran: list[type] = []
    for cls in (UnsupportedContentMiddleware, RememberedUnsupportedContent):
        inner = cls._filter_request
        monkeypatch.setattr(
            cls, "_filter_request", lambda self, r, inner=inner, cls=cls: ran.append(cls) or inner(self, r)
        )
    graph = create_cli_agent(settings, model=ScriptedChatModel(script=["ok"]), checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [HumanMessage("hi")]}, cfg, context=AugerContext(mode="yolo"))
    assert ran == [
        RememberedUnsupportedContent
    ]  # one check per call, ours (auger.core.middleware.history_scans)


def _varied_history(n: int) -> list[Any]:
    from langchain_core.messages import AIMessage, ToolMessage

    out: list[Any] = []
    for i in range(n):
        out.append(HumanMessage(f"question {i} " * (i % 7), name="ann" if i % 5 == 0 else None))
        out.append(
            AIMessage(
                "" if i % 2 else f"thinking {i}",
                tool_calls=[{"name": "ls", "args": {"path": f"/d{i}"}, "id": f"c{i}"}] if i % 2 else [],
                response_metadata={"model_provider": "openai"},
                usage_metadata={"input_tokens": 10 * i, "output_tokens": 5, "total_tokens": 10 * i + 5 + 300}
                if i % 3 == 0
                else None,
            )
        )
        if i % 2:
            out.append(ToolMessage(f"out {i}", tool_call_id=f"c{i}"))
        if i % 11 == 0:
            out.append(
                HumanMessage([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": "u"}])
            )
    return out


def test_the_token_estimate_is_langchains_with_each_message_counted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import langchain_core.messages.utils as lc_utils
    from langchain_core.messages import AIMessage, SystemMessage
    from langchain_core.tools import tool

    import auger.core.middleware.model.token_count as token_count

    @tool
    def ls(path: str) -> str:
        """List a folder."""
        return path

    tools: list[Any] = [ls, {"name": "raw", "description": "a provider tool", "parameters": {}}]
    history = _varied_history(120)
    for cpt in (4.0, 3.3):
        for scaling in (True, False):
            ours = token_count.ApproximateTokens(cpt, scaling=scaling)
            prompt = SystemMessage("the system prompt")
            for messages in (history, history[:1], history[50:], [], [prompt, *history], [prompt]):
                for with_tools in (None, tools):
                    expected = lc_utils.count_tokens_approximately(
                        messages, chars_per_token=cpt, use_usage_metadata_scaling=scaling, tools=with_tools
                    )
                    assert ours(messages, tools=with_tools) == expected
    mixed = [*history, AIMessage("x", response_metadata={"model_provider": "anthropic"})]
    assert token_count.ApproximateTokens()(mixed) == lc_utils.count_tokens_approximately(
        mixed, use_usage_metadata_scaling=True
    )
    counted: list[Any] = []
    inner = token_count.count_tokens_approximately
    monkeypatch.setattr(
        token_count, "count_tokens_approximately", lambda m, **k: counted.append(m) or inner(m, **k)
    )
    counter = token_count.ApproximateTokens()
    counter(history, tools=tools)
    assert len(counted) == len(history)
    counted.clear()
    grown = [*history, HumanMessage("next"), AIMessage("reply")]
    assert counter(grown, tools=tools) == inner(grown, use_usage_metadata_scaling=True, tools=tools)
    assert len(counted) == 2  # only the new messages (was: the whole history, every model call)
    counted.clear()
    reread = [*grown[:-2], *(m.model_copy() for m in grown[-2:]), HumanMessage("a new turn")]  # read back
    assert counter(reread, tools=tools) == inner(reread, use_usage_metadata_scaling=True, tools=tools)
    assert len(counted) == 3
    counted.clear()
    prompted = [SystemMessage("the system prompt, rebuilt for each call"), *reread]
    assert counter(prompted, tools=tools) == inner(prompted, use_usage_metadata_scaling=True, tools=tools)
    assert len(counted) == 1  # the system message only


def test_auto_summarization_counts_with_it() -> None:
    from auger.core.middleware.model.pre_compact import summarization
    from auger.core.middleware.model.token_count import ApproximateTokens

    middleware = summarization(ScriptedChatModel(script=[]), None)
    assert isinstance(middleware.token_counter, ApproximateTokens) and middleware.token_counter.scaling
    assert middleware._lc_helper._partial_token_counter is middleware.token_counter.unscaled


async def test_the_snapshot_stored_in_postgresql_reads_back_with_langgraphs_own_serializer(
    settings: Settings, pg_url: str
) -> None:
    """On PostgreSQL the snapshot is a blob of its own (`checkpoint_blobs`): packed from the kept
    encodings, it decodes with LangGraph's plain serializer to the thread's first messages."""
    import psycopg

    from auger.core.agent.graph import create_cli_agent
    from auger.core.threads.messages_reducer import SNAPSHOT_FREQUENCY
    from auger.core.threads.postgres.saver import open_postgres_saver

    saver, closer = await open_postgres_saver(pg_url)
    turns = SNAPSHOT_FREQUENCY - 10  # two writes a turn: one snapshot, at ~50 messages
    graph = create_cli_agent(
        settings, model=ScriptedChatModel(script=[f"answer {i}" for i in range(turns)]), checkpointer=saver
    )
    cfg = {"configurable": {"thread_id": "t"}}
    try:
        for i in range(turns):
            await graph.ainvoke(
                {"messages": [HumanMessage(f"question {i}")]}, cfg, context=AugerContext(mode="yolo")
            )
        messages = (await graph.aget_state(cfg)).values["messages"]
    finally:
        await closer.close()
    assert saver.serde.encoded_anew == 2 * turns  # each message once, by its write
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT type, blob FROM checkpoint_blobs WHERE channel = 'messages' AND type <> 'empty'"
        ).fetchall()
    (snapshot,) = [JsonPlusSerializer().loads_typed((kind, bytes(blob))).value for kind, blob in rows]
    assert len(snapshot) >= SNAPSHOT_FREQUENCY - 2
    assert [m.model_dump() for m in snapshot] == [m.model_dump() for m in messages[: len(snapshot)]]
