"""A model call that hands the event loop back by time, while it parses a sent-ahead stream.

The TUI and the agent share one event loop. A streamed reply is read a socket read at a time
(up to 64 KB, hundreds of SSE events when the server is ahead of the client: a fast model, a
stream that resumed after a stall), and the SDK, langchain-core and LangGraph turn every event
of a read into a chunk, a callback and a queued stream message without suspending: 200-900 ms
without the loop, so keys stopped echoing and Esc was not even read until the read was parsed.

`LoopShare.turn()` gives the loop one turn (`asyncio.sleep(0)`) when `EVERY` seconds have passed
since the last one it gave, and costs a clock read otherwise. Slicing the body by bytes (2 KB,
tried and reverted) yielded on every slice however idle the loop was, which slowed a fast
stream by a third; by time, a call yields about 1 / `EVERY` times a second only while it
really keeps the loop, and never in a stream that arrives slower than it is parsed.

`YieldingStream` is the callback that does it per streamed chunk: langchain-core awaits an
inline async handler's `on_llm_new_token` for every chunk of every provider's stream
(BaseChatModel._agenerate_with_cache), so one handler covers OpenAI, Anthropic, Gemini and
Ollama. A cancel (Esc) lands at its `sleep(0)`, a few milliseconds after the key is read.

Keys first (`give_way`): a front end in the same loop (the TUI) can register what it knows of
the keys on their way to the screen. While one is, `turn()` waits instead of going on after its
one turn: a key's trip from the terminal to the screen is several hops of the loop (the app, the
screen, the prompt, the next frame), and between every two of them a 2 ms slice of the model
call's parsing ran. The wait is bounded (`HOLD`): a key that is not shown by then (a prompt
that is not on screen) is not waited for again, and a cancel lands in the wait at once. No front
end registers for headless, `serve` or ACP: there `turn()` is as before.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from langchain_core.callbacks import AsyncCallbackHandler

EVERY = 0.002  # seconds of work after which the loop gets a turn: a key's echo takes a few turns
# (bench_markdown echo, same run, load ~3: p50 62 / p95 168 ms at 2 ms; 4 ms gave 149 / 314 at
# load ~5; mixed markdown 2,741 tok/s at 2 ms, main's build 2,705)


HOLD = 0.05  # seconds the core waits at most for one key to be shown


class KeysFirst(Protocol):
    """A front end's keys on their way to the screen (the TUI's `TypingPace`)."""

    def waiting(self) -> bool:
        """A key is on its way to the screen (and was not given up on)."""
        ...

    async def hold(self, timeout: float) -> None:
        """Until no key is on its way, at most `timeout` s; a key not shown by then is given up on."""
        ...


_KEYS: WeakKeyDictionary[asyncio.AbstractEventLoop, KeysFirst] = WeakKeyDictionary()
_UNKNOWN: Any = object()


def give_way(keys: KeysFirst | None) -> None:
    """The running loop's work that shares it (LoopShare) waits while `keys.waiting()`; None: no
    longer."""
    loop = asyncio.get_running_loop()
    if keys is None:
        _KEYS.pop(loop, None)
    else:
        _KEYS[loop] = keys


class LoopShare:
    """Gives the running event loop a turn when `every` seconds passed since the last one, and
    waits while a key is on its way to the screen (`give_way`)."""

    def __init__(self, every: float = EVERY) -> None:
        self.every = every
        self._last = time.perf_counter()
        self._keys: KeysFirst | None = _UNKNOWN  # looked up in the loop, at the first turn

    async def turn(self) -> None:
        keys = self._keys
        if keys is _UNKNOWN:
            keys = self._keys = _KEYS.get(asyncio.get_running_loop())
        if keys is None or not keys.waiting():
            if time.perf_counter() - self._last < self.every:
                return
            await asyncio.sleep(0)
            if keys is None or not keys.waiting():  # (or a key came in during that turn)
                self._last = time.perf_counter()
                return
        await keys.hold(HOLD)  # the key's hops through the loop, then its frame, go first
        self._last = time.perf_counter()


class YieldingStream(AsyncCallbackHandler):
    """Per streamed chunk of a model call: a turn of the loop when one is due (LoopShare)."""

    run_inline = True  # awaited in order, in the model call's own task

    def __init__(self, every: float = EVERY) -> None:
        self._share = LoopShare(every)

    async def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        pass

    async def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        await self._share.turn()
