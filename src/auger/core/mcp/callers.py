"""Which turn an MCP server's request belongs to.

A server's `sampling/createMessage` and `elicitation/create` arrive on its session's receive
task, started when the server connected, not inside any turn, and nothing on the wire names the
call that caused them. So each turn sets `ANSWERER` (who answers its servers' requests: its
mode, its model, its stream), a call records the answerer of the turn that makes it, and a
server serves the calls of one turn at a time: a call of another turn (another thread of
`auger serve` or `auger acp`) waits until the server is free, at most the call timeout. A request
is answered by the turn whose calls are in flight, and refused when there is none.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator
from typing import Any, Protocol


class ServerRequests(Protocol):
    """Answers a server's requests for one turn (`auger.core.mcp.server_requests.SessionRequests`)
    and tells that turn's user about its calls (`notify`)."""

    def notify(self, text: str) -> None: ...

    async def sample(self, server: str, params: Any) -> Any: ...

    async def elicit(self, server: str, params: Any) -> Any: ...


# set by the turn for its own task (and so for the graph's tasks it starts); None: no turn
ANSWERER: contextvars.ContextVar[ServerRequests | None] = contextvars.ContextVar(
    "auger_mcp_answerer", default=None
)


class Busy(Exception):
    """The server stayed busy with another turn's calls for the whole call timeout."""


class Callers:
    """The turn whose calls one server is serving now."""

    def __init__(self) -> None:
        self.answerer: ServerRequests | None = None  # who answers a request the server sends now
        self._owner: object | None = None  # the answerer, or a token for calls made outside any turn
        self._calls = 0
        self._free = asyncio.Event()
        self._free.set()

    @contextlib.asynccontextmanager
    async def calling(self, timeout: float) -> AsyncIterator[None]:
        """Around one call of the turn running in this context (`Busy`: the server stayed busy
        with another turn's calls for `timeout` seconds)."""
        answerer = ANSWERER.get()
        who = answerer if answerer is not None else object()
        try:
            async with asyncio.timeout(timeout):
                while self._calls and self._owner is not who:
                    await self._free.wait()
        except TimeoutError:
            raise Busy from None
        self._owner, self.answerer = who, answerer
        self._calls += 1
        self._free.clear()
        try:
            yield
        finally:
            self._calls -= 1
            if not self._calls:
                self._owner = self.answerer = None
                self._free.set()
