"""Where a list holds the same objects as the last one: C-level passes, one Python step per miss.

The per-message memos (message dicts, their JSON, the middleware's per-message results) keep
what they computed for the last request's messages. `operator.is_` mapped over the two lists
marks the places holding the same object as before in one C-level pass; `false_at` then finds
the other places with `list.index` (C-level searches), so a request that is the last one grown
by a few messages, or with a message rewritten here and there, costs Python steps only for those.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from typing import Any


def false_at(flags: list[bool]) -> Iterator[int]:
    """The indexes of the False items (C-level searches: one Python step per False)."""
    i = -1
    while True:
        try:
            i = flags.index(False, i + 1)
        except ValueError:
            return
        yield i


def changed_places(before: Sequence[Any], now: Sequence[Any]) -> tuple[list[bool], list[int]]:
    """Per place of `before` shared with `now`: whether it holds the same object; and the places
    of `now` to look at (those that do not, then the ones past `before`'s end)."""
    same = list(map(operator.is_, before, now))
    return same, [*false_at(same), *range(len(same), len(now))]
