"""Keys first: while the user types, a streamed reply is drawn in the gaps between keys.

A key's echo is a small repaint (the prompt). A flush of a streamed reply is a layout pass and a
repaint of the whole transcript (it scrolls as it grows), and on a busy loop a key that comes in
behind one waits for all of it: at load 3, 60-200 ms. So while the user types (a key in the last
`WINDOW` s) a reply flushes right after a key's echo has been written to the terminal, in the
gap before the next key, and renders in short slices (`StreamedMarkdown`).

A key is followed from the terminal on: the driver's input thread calls `arrived()` (the loop
may be busy for a while before the key reaches the prompt), the prompt calls `key()` when it has
handled it (`shows=True` when the key changed what it shows) and `painted()` when it renders.
A flush waits with `after_echo()` or `wait_keys()`. One `TypingPace` per app (`pace_of`).

The agent's own work in the loop (parsing a streamed model reply, 2 ms at a time) waits too: the
app hands its pace to the session (`give_way_to`), whose loop share calls `waiting()` at every
turn it takes and `hold()`s until the key is on screen, for at most the time it asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.message import Message

WINDOW = 0.5  # a key this recent (s): the user is typing
STRAY = 0.1  # a key that arrived but was not handled by the prompt this long after: not its


class TypingPace:
    def __init__(self) -> None:
        self.last_key_at = 0.0
        self.arrived_at = 0.0  # the last key read from the terminal (the driver's thread)
        self.handled_at = 0.0  # the last key the prompt handled
        self._shown = 0  # keys that changed the prompt, counted
        self._echoed = 0  # of them, how many were on screen at the last paint of the prompt
        self._after_echo: list[Callable[[], object]] = []
        self._wakers: list[asyncio.Future[None]] = []
        self._given_up: tuple[int, float] = (0, 0.0)  # the keys a hold() timed out on

    @property
    def typing(self) -> bool:
        return time.monotonic() - self.last_key_at < WINDOW

    @property
    def unechoed(self) -> bool:
        """A key changed the prompt and the prompt has not been painted since."""
        return self._echoed < self._shown

    @property
    def busy(self) -> bool:
        """A key is on its way to the screen: read from the terminal and not handled yet, or
        handled and not painted yet."""
        arrived = self.arrived_at
        in_flight = arrived > self.handled_at and time.monotonic() - arrived < STRAY
        return in_flight or self.unechoed

    def arrived(self) -> None:
        """A key was read from the terminal (called in the driver's input thread)."""
        self.arrived_at = time.monotonic()

    def key(self, *, shows: bool) -> None:
        """A key was handled; `shows`: it changed the prompt (its echo is a repaint to come)."""
        self.last_key_at = self.handled_at = time.monotonic()
        self._shown += shows
        self._wake()

    def painted(self) -> None:
        """The prompt is being rendered into a frame: the keys typed so far show once it is
        written, and what waited for them runs after that (`call_soon`: after this frame)."""
        if not self.unechoed:
            return
        self._echoed = self._shown
        waiting, self._after_echo = self._after_echo, []
        if waiting:
            loop = asyncio.get_running_loop()
            for callback in waiting:
                loop.call_soon(callback)
        self._wake()

    def after_echo(self, callback: Callable[[], object]) -> None:
        """Run `callback` right after the next key's echo is on screen."""
        self._after_echo.append(callback)

    async def wait_keys(self, timeout: float = WINDOW) -> None:
        """Until no key is on its way to the screen (`busy`), at most `timeout` s (a prompt that
        is not shown is never painted: its keys are not waited for again)."""
        typed = self._shown
        if not await self._wait(lambda: self.busy, timeout, STRAY):
            self._echoed = max(self._echoed, typed)

    def waiting(self) -> bool:
        """`busy`, unless a `hold()` already timed out on these same keys."""
        return self.busy and (self._shown, self.arrived_at) != self._given_up

    async def hold(self, timeout: float) -> None:
        """Until no key is `waiting()`, at most `timeout` s (then these keys are given up on: a
        prompt that is not on screen does not stop the agent again and again)."""
        if not await self._wait(self.waiting, timeout, timeout):
            self._given_up = (self._shown, self.arrived_at)

    async def _wait(self, busy: Callable[[], bool], timeout: float, step: float) -> bool:
        """While `busy()`, asked again as each key moves on and at least every `step` s, at most
        `timeout` s (then False)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while busy():
            left = deadline - loop.time()
            if left <= 0:
                return False
            waker: asyncio.Future[None] = loop.create_future()
            self._wakers.append(waker)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waker, min(left, step))
        return True

    def _wake(self) -> None:
        wakers, self._wakers = self._wakers, []
        for waker in wakers:
            if not waker.done():
                waker.set_result(None)


_PACES: WeakKeyDictionary[App[Any], TypingPace] = WeakKeyDictionary()


def pace_of(app: App[Any]) -> TypingPace:
    pace = _PACES.get(app)
    if pace is None:
        pace = _PACES[app] = TypingPace()
    return pace


def noting_keys(base: type[Driver]) -> type[Driver]:
    """`base` (the terminal driver Textual chose) telling the app's `TypingPace` of each key as
    soon as it is read, before the event loop gets to it."""

    class KeyNotingDriver(base):  # type: ignore[valid-type, misc]
        def process_message(self, message: Message) -> None:
            if isinstance(message, events.Key):
                pace_of(self._app).arrived()
            super().process_message(message)

    return KeyNotingDriver
