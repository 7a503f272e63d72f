"""A tool call's timeout that waits while its MCP server waits for the user.

A server may ask the user to fill in a form (`elicitation/create`) in the middle of a tool call;
the user may take minutes. `FormClock` counts a server's open forms: `wait_call` lets the call's
`mcp.call_timeout` run only while no form is open, and gives the call the whole timeout again
from the moment the last form is answered. `held` wraps the server's elicitation callback so
each form is counted. The SDK's own read timeout is not used for tool calls (it cannot pause).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

TIMED_OUT = "timed out"  # the cancel message of a call auger stopped waiting for (its reason to the server)


class FormClock:
    """The forms (elicitation/create) a server has open with the user. A tool call's timeout
    does not run while its server waits for the user: it starts again, whole, when the last
    form is answered (a user may take minutes; the server asked for it)."""

    def __init__(self) -> None:
        self.open = 0
        self.idle = asyncio.Event()
        self.idle.set()
        self.closed_at = 0.0  # the loop time the last form was answered

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.open += 1
        self.idle.clear()
        try:
            yield
        finally:
            self.open -= 1
            self.closed_at = asyncio.get_running_loop().time()
            if not self.open:
                self.idle.set()

    async def wait_call(self, call: asyncio.Future[Any], down: asyncio.Future[Any], timeout: float) -> bool:
        """Until `call` or `down` is done (True) or `timeout` seconds pass with no form open (False)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (call.done() or down.done()):
            if self.open:
                idle = asyncio.ensure_future(self.idle.wait())
                await asyncio.wait({call, down, idle}, return_when=asyncio.FIRST_COMPLETED)
                idle.cancel()
            deadline = max(deadline, self.closed_at + timeout)  # a form answered meanwhile
            remaining = deadline - loop.time()
            if remaining <= 0 and not self.open:
                return False
            if remaining > 0:
                await asyncio.wait({call, down}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        return True


def held(
    clock: FormClock, callback: Callable[[Any, Any], Awaitable[Any]]
) -> Callable[[Any, Any], Awaitable[Any]]:
    """`callback` (a server's elicitation callback) with each form counted on `clock`."""

    async def elicit(context: Any, params: Any) -> Any:
        with clock.held():
            return await callback(context, params)

    return elicit
