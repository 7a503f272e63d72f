"""Thread operations that need LangGraph's message objects.

* `read_history(db, thread_id)` — a thread's messages without building the agent (no model, no
  tools): a one-node graph whose `messages` channel is the same DeltaChannel deepagents uses, read
  through the public `aget_state`.
* `install_hooks(session, store)` — registers the thread when a turn starts and, when it ends,
  records the message count, indexes the new messages' text for search and collapses the turn's
  intermediate checkpoints (`auger.core.thread_collapse`).
* `fork_thread(store, source, at_turn)` — the checkpoint copy plus indexing of the new thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from auger.core.thread_search import IndexedMessage
from auger.core.threads import ThreadStore, git_branch

if TYPE_CHECKING:
    from auger.core.session import Session
    from auger.core.thread_backend import ThreadDatabase

log = logging.getLogger("auger.threads")
ROLES = {"human": "user", "ai": "assistant", "tool": "tool"}
ARGS_CHARS = 2_000


def content_text(content: Any) -> str:
    """The text of a message's content (a string, or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text", "") for p in content if isinstance(p, str | dict)]
        return "".join(str(p) for p in parts)
    return "" if content is None else str(content)


def message_text(msg: Any) -> IndexedMessage | None:
    """What search indexes for one message: user and assistant text (plus tool calls), tool output."""
    role = ROLES.get(getattr(msg, "type", ""))
    if role is None:
        return None
    text = content_text(getattr(msg, "content", ""))
    if role == "assistant":
        calls = [
            f"{c.get('name')} {json.dumps(c.get('args'), ensure_ascii=False, default=str)[:ARGS_CHARS]}"
            for c in getattr(msg, "tool_calls", None) or []
        ]
        text = "\n".join(p for p in (text, *calls) if p)
    return IndexedMessage(role, text)


def messages_after(messages: Sequence[Any], last_id: str | None) -> Sequence[Any]:
    """The messages after the one with id `last_id` (all of them if it is not found)."""
    if last_id is not None:
        for i in range(len(messages) - 1, -1, -1):
            if getattr(messages[i], "id", None) == last_id:
                return messages[i + 1 :]
    return messages


async def index_messages(
    store: ThreadStore, thread_id: str, messages: Sequence[Any], *, model: str | None = None
) -> None:
    """Record the count and index every message not indexed yet."""
    last = await asyncio.to_thread(store.last_message_id, thread_id)
    texts = [t for m in messages_after(messages, last) if (t := message_text(m)) is not None]
    last_id = getattr(messages[-1], "id", None) if messages else last
    await asyncio.to_thread(
        store.record_turn,
        thread_id,
        texts,
        message_count=len(messages),
        last_message_id=last_id,
        model=model,
    )


def install_hooks(session: Session, store: ThreadStore) -> None:
    """Keep `store` current: a row when a turn starts, count + search index when it ends."""
    settings = session.settings
    root = Path(settings.project_root)

    async def on_turn_start(s: Session, prompt: str) -> None:
        await asyncio.to_thread(
            store.begin_turn,
            s.thread_id,
            prompt=prompt,
            cwd=str(settings.cwd),
            root=str(root),
            model=s.model_spec,
            git_branch=git_branch(root),
        )

    async def on_turn_end(s: Session, prompt: str) -> None:
        state = await s.graph.aget_state(s.config)
        messages = list((state.values or {}).get("messages", []))
        await index_messages(store, s.thread_id, messages, model=s.model_spec)
        await collapse_thread(store, s.graph, s.thread_id, settled=not state.next)

    session.on_turn_start = on_turn_start
    session.on_turn_end = on_turn_end


def delta_channels(graph: Any) -> list[str]:
    """The graph's channels that LangGraph stores as writes only (deepagents' `messages`)."""
    from langgraph.channels.delta import DeltaChannel

    return [name for name, channel in graph.channels.items() if isinstance(channel, DeltaChannel)]


async def collapse_thread(store: ThreadStore, graph: Any, thread_id: str, *, settled: bool) -> None:
    """Drop the intermediate checkpoints of the thread's finished turns (`ThreadStore.collapse`)."""
    channels = delta_channels(graph)
    serde = graph.checkpointer.serde

    def holds_seed(type_: str | None, blob: bytes) -> bool:
        values = serde.loads_typed((type_, blob)).get("channel_values") or {}
        return any(name in values for name in channels)

    await asyncio.to_thread(store.collapse, thread_id, channels, holds_seed, settled=settled)


@cache
def _history_graph_builder() -> Any:
    from typing import Annotated

    from langgraph.channels.delta import DeltaChannel
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import _messages_delta_reducer
    from typing_extensions import TypedDict

    # the functional form: annotations are evaluated here, not looked up later by name
    channel: Any = DeltaChannel(cast(Any, _messages_delta_reducer), snapshot_frequency=50)
    HistoryState = TypedDict("HistoryState", {"messages": Annotated[list[Any], channel]})  # noqa: UP013

    builder = StateGraph(HistoryState)
    builder.add_node("noop", lambda _state: {})
    builder.add_edge(START, "noop")
    builder.add_edge("noop", END)
    return builder


async def read_history(db: Path | ThreadDatabase, thread_id: str) -> list[Any]:
    """A thread's messages, read from the checkpointer without building the agent. `db`: the
    thread database, or an SQLite file."""
    from auger.core.checkpoint import open_saver
    from auger.core.thread_backend import ThreadDatabase

    if isinstance(db, Path):
        db = ThreadDatabase(db.parent, file=db)
    saver, conn = await open_saver(db)
    try:
        graph = _history_graph_builder().compile(checkpointer=saver)
        state = await graph.aget_state({"configurable": {"thread_id": thread_id}})
        return list((state.values or {}).get("messages", []))
    finally:
        await conn.close()


async def fork_thread(store: ThreadStore, source_id: str, at_turn: int | None = None) -> str:
    """A new thread holding `source_id`'s history up to user turn `at_turn` (None: all of it);
    its parent and fork point are recorded. Returns the new id."""
    remote_fork = getattr(store, "fork_thread", None)  # a store over `auger serve` (auger.remote_threads)
    if remote_fork is not None:
        return str(await remote_fork(source_id, at_turn))
    new_id = uuid.uuid4().hex
    await asyncio.to_thread(store.fork, source_id, at_turn, new_id=new_id)
    messages = await read_history(store.database, new_id)
    await index_messages(store, new_id, messages)
    return new_id
