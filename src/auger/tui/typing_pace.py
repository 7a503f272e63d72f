"""Keys first: while the user types, a streamed reply is drawn in the gaps between keys.

A key's echo is a small repaint (the prompt). A flush of a streamed reply is a layout pass and a
repaint of the whole transcript (it scrolls as it grows), and on a busy loop a key that comes in
behind one waits for all of it: at load 3, 60-200 ms. So while the user types (a key in the last
`WINDOW` s) a reply flushes right after a key's echo has been written to the terminal, in the
gap before the next key, and renders in short slices (`StreamedMarkdown`).

The prompt calls `key()` on every key (`shows=True` when the key changed what it shows) and
`painted()` when it renders; a flush waits with `after_echo()` or `wait_echo()`. One
`TypingPace` per app (`pace_of`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from weakref import WeakKeyDictionary

from textual.app import App

WINDOW = 0.5  # a key this recent (s): the user is typing


class TypingPace:
    def __init__(self) -> None:
        self.last_key_at = 0.0
        self._shown = 0  # keys that changed the prompt, counted
        self._echoed = 0  # of them, how many were on screen at the last paint of the prompt
        self._waiting: list[Callable[[], object]] = []

    @property
    def unechoed(self) -> bool:
        """A key changed the prompt and the prompt has not been painted since."""
        return self._echoed < self._shown

    @property
    def typing(self) -> bool:
        return time.monotonic() - self.last_key_at < WINDOW

    def key(self, *, shows: bool) -> None:
        """A key was handled; `shows`: it changed the prompt (its echo is a repaint to come)."""
        self.last_key_at = time.monotonic()
        self._shown += shows

    def painted(self) -> None:
        """The prompt is being rendered into a frame: the keys typed so far show once it is
        written, and what waited for them runs after that (`call_soon`: after this frame)."""
        if not self.unechoed:
            return
        self._echoed = self._shown
        waiting, self._waiting = self._waiting, []
        if waiting:
            loop = asyncio.get_running_loop()
            for callback in waiting:
                loop.call_soon(callback)

    def after_echo(self, callback: Callable[[], object]) -> None:
        """Run `callback` right after the next key's echo is on screen."""
        self._waiting.append(callback)

    async def wait_echo(self, timeout: float = WINDOW) -> None:
        """Until the keys typed so far are on screen (at most `timeout` s: a prompt that is not
        shown is never painted)."""
        if not self.unechoed:
            return
        typed = self._shown
        echoed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done() -> None:
            if not echoed.done():
                echoed.set_result(None)

        self.after_echo(done)
        try:
            await asyncio.wait_for(echoed, timeout)
        except TimeoutError:  # not painted: do not wait for these keys again
            self._echoed = max(self._echoed, typed)


_PACES: WeakKeyDictionary[App[object], TypingPace] = WeakKeyDictionary()


def pace_of(app: App[object]) -> TypingPace:
    pace = _PACES.get(app)
    if pace is None:
        pace = _PACES[app] = TypingPace()
    return pace
