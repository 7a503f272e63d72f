"""Garbage-collection policy for a responsive UI.

A full (generation 2) collection walks every tracked object: with the agent stack and a long
transcript loaded that is hundreds of thousands, and during a long streamed reply CPython ran one
every half second, each stalling the event loop for 20-300 ms (keys stopped echoing). So, once
the agent is built:

* automatic full collections are off (the young generations still run as usual);
* at the end of each turn a collection runs over what is new since the last one (a few ms), then
  the survivors are frozen (`gc.freeze()`), so the next one is small again. During a long turn
  the same collection runs whenever enough has reached generation 2 (`PROMOTED`), between two
  keys (`busy`): a streamed reply makes cyclic garbage at a steady pace (every line Textual's
  compositor paints whole is a `Strip` whose divide cache holds itself), and held until the
  turn's end it took the heap up with the reply's duration (+35 MB for a 73 KB reply at
  1,000 tok/s), memory pymalloc could not give back when the garbage went, pinned by survivors.
  Collecting every turn, not every few, keeps each turn's garbage from piling up under the next turn's peak:
  over 1,000 back-to-back turns that was ~10 MB less RSS (the freed memory is reused, not added);
* every `FULL_EVERY` turns, or after the transcript pruned old blocks, the collection covers
  everything (`gc.unfreeze()` first, ~200 ms), so garbage among frozen objects is reclaimed too.
  That one waits `IDLE_DELAY` seconds after the turn (when the user pauses), at the latest until
  the end of the `MAX_SKIPPED`-th turn;
* before each collection the app drops what only pins memory: the render caches of transcript
  blocks out of view (`before_collect`), and two caches that pin dead objects (see the functions
  below).

Before that, from the start of `auger` until the first paint, the collector is off altogether
(`pause_startup` / `end_startup`): importing Textual and building the app makes ~100 young
collections, ~12 ms of a ~150 ms start, for next to no garbage.

Imports here are cheap (the CLI uses this module before anything else).
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import sys
from collections.abc import Callable
from typing import Any

HOLD = 1_000_000  # generation-2 threshold: effectively never automatic
IDLE_DELAY = 1.0
MAX_SKIPPED = 3
FULL_EVERY = 50
TICK = 0.25  # s: during a turn, how often to look whether a collection of what is new is due
PROMOTED = 10  # ...due after this many young collections moved their survivors to generation 2


_startup_paused = False


def pause_startup() -> None:
    """Collector off until `end_startup` (the first paint, or a front end that is not the TUI)."""
    global _startup_paused
    if gc.isenabled():
        gc.disable()
        _startup_paused = True


def end_startup() -> None:
    """Turn the collector back on if `pause_startup` turned it off (idempotent)."""
    global _startup_paused
    if _startup_paused:
        _startup_paused = False
        gc.enable()


class GcPolicy:
    def __init__(
        self,
        schedule: Callable[[float, Callable[[], Any]], Any],
        before_collect: Callable[[], Any] | None = None,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self._schedule = schedule  # (delay, callback) -> a timer with .stop()
        self._before_collect = before_collect
        self._busy = busy  # a key is on its way to the screen: no collection now
        self._tick: Any = None  # while a turn runs: the next look at generation 2
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
        strips_without_self_loop()
        gc.collect()
        gc.freeze()
        g0, g1, _ = self._normal
        gc.set_threshold(g0, g1, HOLD)
        self.enabled = True

    def turn_started(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.enabled and self._tick is None:
            self._tick = self._schedule(TICK, self._ticked)

    def _ticked(self) -> None:
        """During a turn: collect what is new once enough reached generation 2 (the count of
        young collections since the last one, `gc.get_count()[2]`, is what the automatic
        threshold `HOLD` would have compared) and no key is on its way."""
        self._tick = None
        if not self.enabled:
            return
        if gc.get_count()[2] >= PROMOTED and not self._busy():
            gc.collect()
            gc.freeze()
        self._tick = self._schedule(TICK, self._ticked)

    def turn_ended(self) -> None:
        if self._tick is not None:
            self._tick.stop()
            self._tick = None
        if not self.enabled:
            return
        self._since_full += 1
        self._full_due = self._full_due or self._since_full >= FULL_EVERY
        if self._full_due and self._skipped + 1 < MAX_SKIPPED:  # the long one waits for a pause
            self._skipped += 1
            self._collect(full=False)
            self._timer = self._schedule(IDLE_DELAY, self.collect)
        else:
            self.collect()

    def pruned(self) -> None:
        """Old widgets left the DOM: they are frozen, so only a full collection frees them."""
        self._full_due = True

    def cleared(self) -> None:
        """The transcript was emptied (`/clear`, another thread): a full collection once the
        user pauses, so the memory of what it showed goes back at once, not turns later."""
        if not self.enabled:
            return
        self._full_due = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._schedule(IDLE_DELAY, self.collect)

    def collect(self) -> None:
        """A collection: over everything when one is due, else over what is new."""
        self._timer = None
        self._skipped = 0
        full, self._full_due = self._full_due, False
        if full:
            self._since_full = 0
        self._collect(full)

    def _collect(self, full: bool) -> None:
        if self._before_collect is not None:
            self._before_collect()
        release_textual_caches()
        drop_cancelled_timers()
        if full:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        trim_heap()

    def stop(self) -> None:
        """Give the process its usual collector back (the app is closing)."""
        for timer in (self._timer, self._tick):
            if timer is not None:
                timer.stop()
        self._timer = self._tick = None
        if self.enabled:
            gc.set_threshold(*self._normal)
            gc.unfreeze()
            self.enabled = False


def strips_without_self_loop() -> None:
    """Textual's `Strip.divide` caches its result on the strip, and when the one cut is the strip's
    end that result is `[self]`: the strip holds itself. The compositor divides every line it
    paints, so each line a widget renders again (the streamed reply's open block, every flush)
    leaves a cycle only a collection frees, ~500 strips a second during a reply, each with its
    segments and seven caches. Answered without the cache, that one case is freed by its
    reference count as soon as the widget drops it (the other cases hold new strips: no loop)."""
    from textual.strip import Strip

    divide = Strip.divide
    if getattr(divide, "_without_self_loop", False):
        return

    def divide_without_self_loop(self: Strip, cuts: Any) -> Any:
        kept = [cut for cut in cuts if cut <= self.cell_length]
        if kept == [self.cell_length]:
            return [self]
        return divide(self, kept)

    divide_without_self_loop._without_self_loop = True  # type: ignore[attr-defined]
    Strip.divide = divide_without_self_loop  # type: ignore[method-assign]


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
    import asyncio

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


_malloc_trim: Any = None


def trim_heap() -> None:
    """Give the C heap's free pages back to the OS (glibc's `malloc_trim`; elsewhere nothing).

    glibc keeps freed memory for reuse: a turn's large temporary buffers (checkpoint blobs, HTTP
    bodies, big strings) leave megabytes free but resident. Trimming after each collection
    (~1 ms) kept ~4 MB off the RSS over 1,000 turns."""
    global _malloc_trim
    if _malloc_trim is None:
        _malloc_trim = False
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                import ctypes

                trim = ctypes.CDLL(None).malloc_trim
                trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
                _malloc_trim = trim
    if _malloc_trim:
        _malloc_trim(0)
