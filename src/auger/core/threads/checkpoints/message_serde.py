"""The checkpoint serializer, with each stored message decoded once and encoded once per process.

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
run, and LangGraph's reducers replace messages rather than change them.

Encoding is the mirror image. Every 50 writes LangGraph stores the whole message list as a
snapshot, each message through its Python `default` hook (a `model_dump` and a nested pack per
message: ~12 ms at 1,200 messages). Each message's encoding (its msgpack extension) is kept by
identity, from the write that stored it or the bytes it was decoded from; a snapshot packs the
kept encodings in C (`ormsgpack` packs an extension as it is) and encodes in Python only the
messages it has not met (`encoded_anew` counts them), to the same bytes as LangGraph's. A write
is always encoded afresh, so a message changed in place and written again is stored as it is
now; one changed in place and not written again is snapshotted as it was written — as LangGraph's
own replay of the writes between snapshots already gives it. The snapshot's bytes join the
remembered ones, so the next turn's start does not unpack them either. The memo is bounded: it
starts over past `limit` bytes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from itertools import repeat
from typing import Any, cast

import ormsgpack
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.serde.jsonplus import EXT_DELTA_SNAPSHOT, JsonPlusSerializer, _msgpack_default
from langgraph.checkpoint.serde.types import _DeltaSnapshot

from auger.core.models.requests.identity_pass import false_at

MEMO_BYTES = 16 * 1024 * 1024  # bytes held (keys and encodings: ~8k messages), then it starts over
SNAPSHOTS = 2  # delta snapshots remembered whole (the newest; threads run side by side)
_EXT = operator.itemgetter(1)


def _all_messages(value: Any) -> bool:
    return type(value) is list and all(map(isinstance, value, repeat(BaseMessage)))


class MessageMemoSerializer(JsonPlusSerializer):
    def __init__(self, *args: Any, limit: int = MEMO_BYTES, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limit = limit
        self.memo: dict[tuple[int, bytes], BaseMessage] = {}
        self._held = 0  # bytes of the memo's keys and kept encodings
        self.snapshots: dict[bytes, list[BaseMessage]] = {}  # a snapshot's bytes -> its messages
        self.snapshot_hits = 0
        self.looked_up = 0  # messages looked up one by one (in the memo or decoded)
        # id(message) -> (the message, held so that its id stays its own; its msgpack extension)
        self.encoded: dict[int, tuple[BaseMessage, ormsgpack.Ext]] = {}
        self.encoded_anew = 0  # messages encoded by LangGraph's hook (what the tests count)
        self._unpack_ext_hook = self._memo_hook(self._unpack_ext_hook)

    def _hold(self, size: int) -> None:
        if self._held + size > self.limit:
            self.memo.clear()
            self.snapshots.clear()
            self.encoded.clear()
            self._held = 0
        self._held += size

    def _remember_snapshot(self, data: bytes, messages: list[BaseMessage]) -> None:
        while len(self.snapshots) >= SNAPSHOTS:
            del self.snapshots[next(iter(self.snapshots))]  # the oldest
        self.snapshots[data] = list(messages)

    def _memo_hook(self, decode: Callable[[int, bytes], Any]) -> Callable[[int, bytes], Any]:
        def snapshot(data: bytes) -> _DeltaSnapshot:
            known = self.snapshots.get(data)
            if known is not None:
                self.snapshot_hits += 1
                return _DeltaSnapshot(list(known))  # a list of its own, as a decode gives
            # the message list of a snapshot: its messages through `hook`
            value = ormsgpack.unpackb(data, ext_hook=hook, option=ormsgpack.OPT_NON_STR_KEYS)
            if _all_messages(value):
                self._remember_snapshot(data, value)
            return _DeltaSnapshot(value)

        def hook(code: int, data: bytes) -> Any:
            if code == EXT_DELTA_SNAPSHOT:
                return snapshot(data)
            self.looked_up += 1
            key = (code, data)
            found = self.memo.get(key)
            if found is not None:
                return found
            value = decode(code, data)
            if isinstance(value, BaseMessage):
                self._hold(len(data))
                self.memo[key] = value
                self.encoded[id(value)] = (value, ormsgpack.Ext(code, data))  # the bytes it has
            return value

        return hook

    def _fresh(self, message: BaseMessage) -> ormsgpack.Ext:
        """The message encoded by LangGraph's own hook, kept for the snapshots to come."""
        self.encoded_anew += 1
        ext = cast(ormsgpack.Ext, _msgpack_default(message))  # a pydantic model: an extension
        self._hold(len(ormsgpack.packb(ext)))
        self.encoded[id(message)] = (message, ext)
        return ext

    def _snapshot(self, snap: _DeltaSnapshot) -> Any:
        """A message list's snapshot as LangGraph encodes it, from the kept encodings."""
        messages = snap.value
        if not _all_messages(messages):
            return snap  # LangGraph's own encoding
        found = list(map(self.encoded.get, map(id, messages)))  # C-level; held, so ids are theirs
        for i in false_at(list(map(operator.is_not, found, repeat(None)))):
            found[i] = (messages[i], self._fresh(messages[i]))
        kept = cast(list[tuple[BaseMessage, ormsgpack.Ext]], found)  # none missing now
        data = super().dumps_typed(list(map(_EXT, kept)))[1]
        self._remember_snapshot(data, messages)
        return ormsgpack.Ext(EXT_DELTA_SNAPSHOT, data)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, BaseMessage):  # a write: encoded afresh
            return super().dumps_typed(self._fresh(obj))
        if _all_messages(obj):
            return super().dumps_typed(list(map(self._fresh, obj)))
        if type(obj) is _DeltaSnapshot:  # a channel's blob (PostgreSQL)
            return super().dumps_typed(self._snapshot(obj))
        values = obj.get("channel_values") if type(obj) is dict else None
        if type(values) is dict and _DeltaSnapshot in set(map(type, values.values())):  # SQLite
            snapshots = {k: self._snapshot(v) for k, v in values.items() if type(v) is _DeltaSnapshot}
            return super().dumps_typed({**obj, "channel_values": {**values, **snapshots}})
        return super().dumps_typed(obj)

    def with_msgpack_allowlist(self, extra_allowlist: Any) -> JsonPlusSerializer:
        """LangGraph's strict mode narrows the decoder: the copy it makes keeps a memo of its own."""
        clone = super().with_msgpack_allowlist(extra_allowlist)
        if clone is not self and isinstance(clone, MessageMemoSerializer):
            clone.memo, clone._held, clone.snapshots, clone.encoded = {}, 0, {}, {}
            clone._unpack_ext_hook = clone._memo_hook(clone._unpack_ext_hook)
        return clone
