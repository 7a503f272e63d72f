"""The checkpoint serializer, with each stored message decoded once per process.

At the start of every turn LangGraph rebuilds the thread's state from the checkpoints, and the
message list (a delta channel in deepagents' state) comes back as every message the thread
holds, each decoded anew from its msgpack bytes: a pydantic model validated per message, ~50 ms
of a turn at 1,200 messages — the one part of a turn's start that grew with the thread.

`MessageMemoSerializer` is LangGraph's `JsonPlusSerializer` whose msgpack extension hook
remembers the messages it decoded, by their exact bytes (also inside the snapshot of a delta
channel, which it unpacks as LangGraph does): the same bytes decode to the same
message, so a turn decodes only the messages it has not met before (the new ones). The
snapshot of a delta channel (every message of the thread, re-read at every turn's start until the
next one is taken) is remembered whole too, by its bytes (`SNAPSHOTS` of them): the same bytes
give a new list of the same messages without unpacking it, so a turn's start takes no Python step
per message of the thread (`snapshot_hits` counts them, `looked_up` the messages looked up). Only
langchain messages are remembered (never sets, dicts or other values a caller might change in
place); a message object is shared the way LangGraph already shares it between the nodes of one
run, and LangGraph's reducers replace messages rather than change them. The memo is bounded: it
starts over past `limit` bytes of keys.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

import ormsgpack
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.serde.jsonplus import EXT_DELTA_SNAPSHOT, JsonPlusSerializer
from langgraph.checkpoint.serde.types import _DeltaSnapshot

MEMO_BYTES = 16 * 1024 * 1024  # keys held at most (~16k messages), then the memo starts over
SNAPSHOTS = 2  # delta snapshots remembered whole (the newest; threads run side by side)


class MessageMemoSerializer(JsonPlusSerializer):
    def __init__(self, *args: Any, limit: int = MEMO_BYTES, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limit = limit
        self.memo: dict[tuple[int, bytes], BaseMessage] = {}
        self._held = 0  # bytes of the memo's keys
        self.snapshots: dict[bytes, list[BaseMessage]] = {}  # a snapshot's bytes -> its messages
        self.snapshot_hits = 0
        self.looked_up = 0  # messages looked up one by one (in the memo or decoded)
        self._unpack_ext_hook = self._memo_hook(self._unpack_ext_hook)

    def _memo_hook(self, decode: Callable[[int, bytes], Any]) -> Callable[[int, bytes], Any]:
        memo, snapshots = self.memo, self.snapshots

        def snapshot(data: bytes) -> _DeltaSnapshot:
            known = snapshots.get(data)
            if known is not None:
                self.snapshot_hits += 1
                return _DeltaSnapshot(list(known))  # a list of its own, as a decode gives
            # the message list of a snapshot: its messages through `hook`
            value = ormsgpack.unpackb(data, ext_hook=hook, option=ormsgpack.OPT_NON_STR_KEYS)
            if type(value) is list and all(map(isinstance, value, repeat(BaseMessage))):
                while len(snapshots) >= SNAPSHOTS:
                    del snapshots[next(iter(snapshots))]  # the oldest
                snapshots[data] = list(value)
            return _DeltaSnapshot(value)

        def hook(code: int, data: bytes) -> Any:
            if code == EXT_DELTA_SNAPSHOT:
                return snapshot(data)
            self.looked_up += 1
            key = (code, data)
            found = memo.get(key)
            if found is not None:
                return found
            value = decode(code, data)
            if isinstance(value, BaseMessage):
                if self._held + len(data) > self.limit:
                    memo.clear()
                    snapshots.clear()
                    self._held = 0
                memo[key] = value
                self._held += len(data)
            return value

        return hook

    def with_msgpack_allowlist(self, extra_allowlist: Any) -> JsonPlusSerializer:
        """LangGraph's strict mode narrows the decoder: the copy it makes keeps a memo of its own."""
        clone = super().with_msgpack_allowlist(extra_allowlist)
        if clone is not self and isinstance(clone, MessageMemoSerializer):
            clone.memo, clone._held, clone.snapshots = {}, 0, {}
            clone._unpack_ext_hook = clone._memo_hook(clone._unpack_ext_hook)
        return clone
