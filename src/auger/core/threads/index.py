"""Keeping the thread store current: a row when a turn starts (title, project, branch, model),
the message count and the search index of the new messages when it ends, and both for a fork.
When a turn ends its intermediate checkpoints are also collapsed (`auger.core.threads.checkpoints.collapse`).

`ThreadIndex` is the Runtime's turn observer: every Session of the Runtime calls it (unless the
session records nothing, like the server's stateless chats)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.threads.history import content_text, read_history
from auger.core.threads.search import IndexedMessage
from auger.core.threads.store import ThreadStore
from auger.paths import git_branch

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
) -> float:
    """Record the count and index every message not indexed yet. Returns the row's new `updated_at`."""
    last = await asyncio.to_thread(store.last_message_id, thread_id)
    texts = [t for m in messages_after(messages, last) if (t := message_text(m)) is not None]
    last_id = getattr(messages[-1], "id", None) if messages else last
    return await asyncio.to_thread(
        store.record_turn,
        thread_id,
        texts,
        message_count=len(messages),
        last_message_id=last_id,
        model=model,
    )


async def index_added(
    store: ThreadStore, thread_id: str, added: Sequence[Any], *, model: str | None = None
) -> float:
    """Record a turn from the messages it added (as the Session saw them stream by), without
    reading the thread's history: count = the recorded count + these, index = their text.
    Only right when the index was current before the turn (`ThreadIndex.needs_history`).
    Returns the row's new `updated_at`."""
    texts = [t for m in added if (t := message_text(m)) is not None]
    ids = [m.id for m in added if getattr(m, "id", None)]

    def record() -> float:
        info = store.get(thread_id)
        return store.record_turn(
            thread_id,
            texts,
            message_count=(info.message_count if info else 0) + len(added),
            last_message_id=ids[-1] if ids else store.last_message_id(thread_id),
            model=model,
        )

    return await asyncio.to_thread(record)


class ThreadIndex:
    """Registers a thread when a turn starts; counts and indexes its messages when it ends.

    A turn's messages can be indexed from what it streamed (`turn_added`) only if the index held
    everything before it: its row is as this index last wrote it at the end of the previous turn.
    A thread this index has not written yet, a turn killed before its end (in any process), a
    failed or cancelled indexing, or another process's turn leave it otherwise, and the turn reads
    the history (`turn_ended`), which indexes what was missed. So the history is read once per
    thread and Runtime, not on every turn."""

    def __init__(self, store: ThreadStore, settings: Settings, graph: Any = None) -> None:
        self.store = store
        self.cwd = str(settings.cwd)
        self.root = Path(settings.project_root)
        self.graph = graph  # the Runtime's agent: its checkpoints are collapsed after each turn
        self._written: dict[str, float] = {}  # thread id -> the `updated_at` this index last wrote
        self._current: set[str] = set()  # threads whose index held everything when their turn started

    def needs_history(self, thread_id: str) -> bool:
        """Whether the turn now ending must be indexed from the thread's history."""
        return thread_id not in self._current

    async def turn_started(self, thread_id: str, prompt: str, model: str | None) -> None:
        self._current.discard(thread_id)
        before = await asyncio.to_thread(
            self.store.begin_turn,
            thread_id,
            prompt=prompt,
            cwd=self.cwd,
            root=str(self.root),
            model=model,
            git_branch=git_branch(self.root),
        )
        if before is not None and before == self._written.get(thread_id):
            self._current.add(thread_id)

    async def turn_ended(
        self, thread_id: str, messages: Sequence[Any], model: str | None, *, settled: bool = False
    ) -> None:
        """The turn is over and `messages` is the thread's whole history. `settled`: nothing is
        pending on the thread (the turn finished, no approval waits)."""
        await self._record(thread_id, index_messages(self.store, thread_id, messages, model=model), settled)

    async def turn_added(
        self, thread_id: str, added: Sequence[Any], model: str | None, *, settled: bool = False
    ) -> None:
        """The turn is over and added `added` (known from the stream; the history is not read)."""
        await self._record(thread_id, index_added(self.store, thread_id, added, model=model), settled)

    async def _record(self, thread_id: str, indexing: Awaitable[float], settled: bool) -> None:
        """Await the turn's `indexing` (its `updated_at` is remembered), then collapse the turn."""
        self._current.discard(thread_id)
        self._written.pop(thread_id, None)  # if this fails, the next turn reads the history again
        self._written[thread_id] = await indexing
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


async def truncate_thread(store: ThreadStore, thread_id: str, keep: int) -> None:
    """Remove user turns keep+1.. from the thread in place (`auger threads rewind`), then index
    what is left again so search and the message count match the conversation."""
    await asyncio.to_thread(store.truncate, thread_id, keep)
    await index_messages(store, thread_id, await read_history(store.database, thread_id))
