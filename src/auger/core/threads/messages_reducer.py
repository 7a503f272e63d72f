"""The thread's message list grown by the new messages alone, not rebuilt from the whole history.

deepagents keeps `messages` in a LangGraph `DeltaChannel` whose reducer
(`deepagents._messages_reducer._messages_delta_reducer`) rebuilds the list on every write: an
index of every message's id, a new list, a filtering pass — O(history) Python per write, and a
step writes several times (the model node, the tool node, LangGraph's fresh reads of a node's
own writes): ~1 ms of each turn at 1,200 messages, growing with the thread.

`messages_reducer` gives the same result from the id index it built for a list it returned: the
usual write (new messages, or a message replaced by id) onto such a list — or onto a copy of it:
LangGraph copies a channel's list for every fresh read and step — copies that list and index
(C-level) and applies only the written messages, in deepagents' own order of rules. A base is
recognised by its length and last message, then compared whole with a private copy of the kept
list (C-level: identical items), so a list changed in place since is never taken for it. A
base of messages it did not return — at a turn's start, the list LangGraph decoded from the
thread's snapshot, onto which it replays the writes since — gets its index from C-level passes
(each message's id, zipped with its place: a later duplicate wins, as in deepagents' pass), so
that is no Python step per message either; that index is kept too (the newest BASES), so the
next turn, which reads the same snapshot back (the same messages: the serializer remembers it),
copies it instead of building it again (0.8 ms of a turn at 1,200 messages). Anything else —
an empty base, a removal, raw dicts or tuples to convert — goes to deepagents' reducer itself.
A kept index is never changed in place (LangGraph reduces onto the same base more than once). A
few lists are kept (threads and subagents run side by side).

`AgentState` is deepagents' state with this reducer on `messages` (the same channel, the same
snapshots every 50 writes), given to `create_deep_agent` as its `state_schema`.
"""

from __future__ import annotations

import operator
import threading
from dataclasses import dataclass
from typing import Annotated, Any, Required

from deepagents._messages_reducer import _messages_delta_reducer
from deepagents.graph import DeepAgentState
from langchain_core.messages import AnyMessage, BaseMessage, RemoveMessage
from langgraph.channels.delta import DeltaChannel

KEPT = 8  # lists (with their id index) kept for the next write onto them
BASES = 2  # lists read back (the thread's snapshot at a turn's start), kept with their index
SNAPSHOT_FREQUENCY = 50  # as deepagents' own channel
_ID = operator.attrgetter("id")


@dataclass(slots=True)
class _Kept:
    """A list this reducer returned: a private copy of it, and its id index."""

    messages: list[Any]
    index: dict[str, int]


Kept = dict[tuple[int, int], _Kept]  # by (length, id of the last message)
_kept: Kept = {}  # lists this reducer returned, the newest KEPT
_bases: Kept = {}  # lists read back (a turn's start), the newest BASES
_lock = threading.Lock()  # a sync graph may reduce on its caller's thread


def _key(messages: list[Any]) -> tuple[int, int]:
    return len(messages), id(messages[-1])


def _written(writes: list[Any]) -> list[BaseMessage] | None:
    """The written messages, flattened, when all are messages that add or replace (else None)."""
    flat: list[Any] = []
    for w in writes:
        if isinstance(w, list):
            flat.extend(w)
        else:
            flat.append(w)
    if all(isinstance(m, BaseMessage) and not isinstance(m, RemoveMessage) for m in flat):
        return flat
    return None


def _remember(kept: Kept, most: int, messages: list[Any], index: dict[str, int]) -> None:
    """Keep `messages` and their `index` in `kept`, which holds `most` (the oldest goes)."""
    with _lock:
        if len(kept) >= most:
            del kept[next(iter(kept))]  # the oldest
        kept[_key(messages)] = _Kept(list(messages), index)


def _keep(messages: list[Any], index: dict[str, int]) -> list[Any]:
    if messages:
        _remember(_kept, KEPT, messages, index)
    return messages


def id_index(messages: list[Any]) -> dict[str, int]:
    """deepagents' id index of a list of messages (the place of each id, the last one for an id
    met twice; messages without one unindexed), from C-level passes."""
    index = dict(zip(map(_ID, messages), range(len(messages)), strict=True))
    index.pop(None, None)  # type: ignore[call-overload]
    return index


def messages_reducer(state: list[AnyMessage] | None, writes: list[Any]) -> list[AnyMessage]:
    """deepagents' messages reducer, O(written messages) in Python onto any list of messages."""
    if not state or not isinstance(state[0], BaseMessage) or (written := _written(writes)) is None:
        full = _messages_delta_reducer(state, writes)
        return _keep(full, id_index(full))
    key = _key(state)
    kept = _kept.get(key) or _bases.get(key)
    # C-level: identical items compare equal at once; a list changed since (or another list
    # ending alike) fails on its first differing message
    if kept is not None and state == kept.messages:  # a list this reducer returned, a copy of it,
        index = dict(kept.index)  # or a list read back before: its index
    else:  # else one built in C, kept: the next turn reads the same snapshot back
        index = id_index(state)
        _remember(_bases, BASES, state, dict(index))
    result: list[Any] = list(state)
    for msg in written:  # deepagents' rules: a new id appends, a known id replaces in place
        mid = msg.id
        if mid is None:
            result.append(msg)
        elif mid in index:
            result[index[mid]] = msg
        else:
            index[mid] = len(result)
            result.append(msg)
    return _keep(result, index)


class AgentState(DeepAgentState):
    """deepagents' agent state, its messages reduced by `messages_reducer`."""

    messages: Required[  # type: ignore[misc]
        Annotated[list[AnyMessage], DeltaChannel(messages_reducer, snapshot_frequency=SNAPSHOT_FREQUENCY)]
    ]
