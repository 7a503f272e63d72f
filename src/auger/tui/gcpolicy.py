"""Garbage-collection policy for a responsive UI.

A full (generation 2) collection walks every tracked object: with the agent stack and a long
transcript loaded that is hundreds of thousands, and during a long streamed reply CPython ran one
every half second, each stalling the event loop for 20-300 ms (keys stopped echoing). So, once
the agent is built:

* automatic full collections are off (the young generations still run as usual);
* after each turn a collection runs over what is new since the last one, then the survivors are
  frozen (`gc.freeze()`), so the next one is small again. It runs `IDLE_DELAY` seconds after the
  turn (when the user pauses), at the latest at the end of the `MAX_SKIPPED`-th turn;
* every `FULL_EVERY` turns, or after the transcript pruned old blocks, that collection covers
  everything (`gc.unfreeze()` first), so garbage among frozen objects is reclaimed too;
* two caches that pin dead objects are emptied first (see the functions below).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import heapq
from collections.abc import Callable
from typing import Any

HOLD = 1_000_000  # generation-2 threshold: effectively never automatic
IDLE_DELAY = 1.0
MAX_SKIPPED = 3
FULL_EVERY = 50


class GcPolicy:
    def __init__(self, schedule: Callable[[float, Callable[[], Any]], Any]) -> None:
        self._schedule = schedule  # (delay, callback) -> a timer with .stop()
        self._normal = gc.get_threshold()
        self._timer: Any = None
        self._skipped = 0  # turns ended without a collection since the last one
        self._since_full = 0  # turns since the last collection over everything
        self._full_due = False
        self.enabled = False

    def start(self) -> None:
        """The agent is built: freeze what exists and take over full collections."""
        if self.enabled:
            return
        gc.collect()
        gc.freeze()
        g0, g1, _ = self._normal
        gc.set_threshold(g0, g1, HOLD)
        self.enabled = True

    def turn_started(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def turn_ended(self) -> None:
        if not self.enabled:
            return
        self._skipped += 1
        self._since_full += 1
        self._full_due = self._full_due or self._since_full >= FULL_EVERY
        if self._skipped >= MAX_SKIPPED:
            self.collect()
        else:
            self._timer = self._schedule(IDLE_DELAY, self.collect)

    def pruned(self) -> None:
        """Old widgets left the DOM: they are frozen, so only a full collection frees them."""
        self._full_due = True

    def collect(self) -> None:
        self._timer = None
        self._skipped = 0
        release_textual_caches()
        drop_cancelled_timers()
        if self._full_due:
            gc.unfreeze()
            self._full_due, self._since_full = False, 0
        gc.collect()
        gc.freeze()

    def stop(self) -> None:
        """Give the process its usual collector back (the app is closing)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.enabled:
            gc.set_threshold(*self._normal)
            gc.unfreeze()
            self.enabled = False


def release_textual_caches() -> None:
    """Textual 8 memoises `StylesCache.get_inner_outer` with `lru_cache(1024)` on the instance
    method, so up to 1,024 caches of removed widgets (with their rendered lines) stay reachable.
    Clear it with each collection; it refills with the widgets still on screen."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:  # pragma: no cover - a Textual without it
        return
    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:
        clear()


def drop_cancelled_timers() -> None:
    """Remove cancelled timer handles from the running loop's heap.

    Every model call arms a long timeout (the HTTP client's, minutes) and cancels it when the
    call returns; asyncio keeps a cancelled handle until its time comes, or until over half of
    at least 100 scheduled handles are cancelled. Each handle holds the context it was made in,
    and that context (LangGraph's run config) holds the turn's state: dozens of old turns'
    messages stay reachable. Dropping them after each turn keeps memory flat over a long session.
    """
    with contextlib.suppress(RuntimeError, AttributeError, TypeError):
        loop = asyncio.get_running_loop()
        scheduled = loop._scheduled  # type: ignore[attr-defined]
        if not isinstance(scheduled, list) or not hasattr(loop, "_timer_cancelled_count"):
            return
        live = [handle for handle in scheduled if not handle.cancelled()]
        if len(live) != len(scheduled):
            heapq.heapify(live)
            scheduled[:] = live
            loop._timer_cancelled_count = 0  # type: ignore[attr-defined]
