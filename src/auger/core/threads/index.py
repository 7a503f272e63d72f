"""Keeping the thread store current: a row when a turn starts (title, project, branch, model),
the message count and the search index of the new messages when it ends, and both for a fork.
When a turn ends its intermediate checkpoints are also collapsed (`auger.core.threads.collapse`).

`ThreadIndex` is the Runtime's turn observer: every Session of the Runtime calls it (unless the
session records nothing, like the server's stateless chats)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.threads.history import content_text, read_history
from auger.core.threads.search import IndexedMessage
from auger.core.threads.store import ThreadStore, git_branch

if TYPE_CHECKING:
    from auger.settings import Settings

ROLES = {"human": "user", "ai": "assistant", "tool": "tool"}
ARGS_CHARS = 2_000


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


class ThreadIndex:
    """Registers a thread when a turn starts; counts and indexes its messages when it ends."""

    def __init__(self, store: ThreadStore, settings: Settings, graph: Any = None) -> None:
        self.store = store
        self.cwd = str(settings.cwd)
        self.root = Path(settings.project_root)
        self.graph = graph  # the Runtime's agent: its checkpoints are collapsed after each turn

    async def turn_started(self, thread_id: str, prompt: str, model: str | None) -> None:
        await asyncio.to_thread(
            self.store.begin_turn,
            thread_id,
            prompt=prompt,
            cwd=self.cwd,
            root=str(self.root),
            model=model,
            git_branch=git_branch(self.root),
        )

    async def turn_ended(
        self, thread_id: str, messages: Sequence[Any], model: str | None, *, settled: bool = True
    ) -> None:
        """`settled`: nothing is pending on the thread (the turn finished, no approval waits)."""
        await index_messages(self.store, thread_id, messages, model=model)
        if self.graph is not None:
            await collapse_thread(self.store, self.graph, thread_id, settled=settled)


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


async def fork_thread(store: ThreadStore, source_id: str, at_turn: int | None = None) -> str:
    """A new thread holding `source_id`'s history up to user turn `at_turn` (None: all of it);
    its parent and fork point are recorded. Returns the new id."""
    new_id = uuid.uuid4().hex
    await asyncio.to_thread(store.fork, source_id, at_turn, new_id=new_id)
    messages = await read_history(store.database, new_id)
    await index_messages(store, new_id, messages)
    return new_id
