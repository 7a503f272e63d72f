"""MessageMemo: a per-message result kept from one model call to the next.

Middleware that rewrites each message of a request (clean Unicode, strip a provider's marks)
would otherwise redo the whole history on every step of a turn: O(history) per step, O(n²) per
turn. LangGraph keeps the same message objects in state from step to step, so the result for a
message object is kept (by identity) for as long as that message is in the requests; what left
the request is forgotten at the next call. Messages are not changed in place (middleware copies
them), which is what makes identity a safe key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class MessageMemo:
    def __init__(self, transform: Callable[[Any], Any]) -> None:
        self._transform = transform
        self._kept: dict[int, tuple[Any, Any]] = {}  # id(message) -> (message, its result)

    def map(self, messages: Sequence[Any]) -> list[Any]:
        """`transform(m)` for each message, computed only for messages not seen at the last call."""
        kept: dict[int, tuple[Any, Any]] = {}
        out: list[Any] = []
        for message in messages:
            hit = self._kept.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, self._transform(message))
            kept[id(message)] = hit
            out.append(hit[1])
        self._kept = kept
        return out
