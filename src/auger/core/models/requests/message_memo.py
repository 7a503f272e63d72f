"""MessageMemo: a per-message result kept from one model call to the next.

Middleware that rewrites each message of a request (clean Unicode, strip a provider's marks)
would otherwise redo the whole history on every step of a turn: O(history) per step, O(n²) per
turn. LangGraph keeps the same message objects in state from step to step, so the result for a
message object is kept (by identity) for as long as that message is in the requests; what left
the request is forgotten at the next call. Messages are not changed in place (middleware copies
them), which is what makes identity a safe key. The usual request is the last one plus the
messages of the step since (or, at a turn's first call, with the last turn's messages as read
back from the thread), perhaps with a message rewritten in front (the first user message with
its project-facts note): the places that hold the same message as the last call are found by
identity in one C-level pass (`operator.is_` over the old list) and only the rest is looked at
in Python.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from auger.core.models.requests.identity_pass import changed_places


class MessageMemo:
    def __init__(self, transform: Callable[[Any], Any]) -> None:
        self._transform = transform
        self._kept: dict[int, tuple[Any, Any]] = {}  # id(message) -> (message, its result)
        self._last: tuple[list[Any], list[Any]] = ([], [])  # the last call's messages and results

    def map(self, messages: Sequence[Any]) -> list[Any]:
        """`transform(m)` for each message, computed only for messages not seen at the last call."""
        before, results = self._last
        # where this request holds the last one's message at the same place: one C-level pass;
        # only the other places (a message a middleware rewrote, e.g. the first one with the
        # project-facts note, the tail read back or new) are looked up in Python
        same, look = changed_places(before, messages)
        out = results[: len(same)] + [None] * (len(messages) - len(same))
        for i in look:
            out[i] = self._one(messages[i])
        if len(self._kept) > 2 * len(messages) + 64:  # forget what left the requests
            self._kept = {id(m): self._kept[id(m)] for m in messages}
        self._last = (list(messages), out)
        return list(out)

    def _one(self, message: Any) -> Any:
        hit = self._kept.get(id(message))
        if hit is None or hit[0] is not message:
            hit = (message, self._transform(message))
            self._kept[id(message)] = hit
        return hit[1]


def common_prefix(before: Sequence[Any], now: Sequence[Any]) -> int:
    """How many leading items `now` shares with `before`, by identity (C-level passes)."""
    same = list(map(operator.is_, before, now))
    return same.index(False) if False in same else len(same)
