"""The controls every remote implementation of the port shares (`RemoteSession` against `auger
serve`, `LangGraphSession` against a LangGraph Server): the approvals and forms the running turn
waits on, `busy`, `cancel()` answering them before the server is asked to stop, and the
background requests (`_spawn`) that `aclose()` lets finish.

A subclass holds its server's `client` (closed by `aclose()`) and says how to stop the run
there (`_stop`); its stream keeps `_running` (`_cancelled`: `cancel()` came during the turn) and
clears the pending requests when a turn ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable
from typing import Any, Generic, Protocol, TypeVar

from auger.core import events as ev
from auger.core import operations as ops
from auger.core.port import AgentPort
from auger.errors import UsageError

log = logging.getLogger("auger.remote")
CANCELLED = "Cancelled by the user."


class Client(Protocol):
    async def aclose(self) -> None: ...


C = TypeVar("C", bound=Client)


class RemoteControls(AgentPort, Generic[C]):
    server_name = "the server"  # for the log line of a failed background request

    def __init__(self, client: C, *, url: str) -> None:
        self.client = client
        self.url = url
        self.thread_id = ""
        self.model_spec: str | None = None
        self.context_tokens = 0
        self.project: str | None = None
        self.default_mode = "manual"  # the server's --mode
        self._pending: dict[str, ev.ApprovalRequested] = {}
        self._inputs: dict[str, ev.InputRequested] = {}  # forms shown to the user now
        self._running = False
        self._cancelled = False  # cancel() during this turn: its streamed text is not shown any more
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def busy(self) -> bool:
        return self._running

    def cancel(self) -> None:
        """Refuse what the turn waits on, then ask the server to stop the run."""
        for request in list(self._pending.values()):
            request.respond(ev.ApprovalDecision("reject", CANCELLED))
        self._inputs.clear()  # the server answers its open forms `cancel` when the run stops
        if self._running:
            self._cancelled = True
            self._stop()

    def _stop(self) -> None:
        raise NotImplementedError

    async def open_thread(self, thread_id: str | None) -> None:
        """Switch to `thread_id` (None: a new thread on the server, with the current model)."""
        if thread_id is None:
            thread = await self.call(ops.NEW_THREAD, ops.NewThread(model=self.model_spec))
        else:
            thread = await self.call(ops.GET_THREAD, ops.ThreadRef(thread_id))
        self.thread_id = thread.id
        self.model_spec = thread.model or self.model_spec
        self.context_tokens = thread.context_tokens or 0

    async def resolve_approval(self, request_id: str, decision: ev.ApprovalDecision) -> None:
        request = self._pending.pop(request_id, None)
        if request is None:
            raise UsageError(f"No pending approval {request_id!r}.")
        if request.future is not None and not request.future.done():
            request.future.set_result(decision)
        await self._answered(request, decision)

    def _awaited(self, request: ev.ApprovalRequested) -> ev.ApprovalRequested:
        """`request` with a future, pending until it is answered; `request.respond(...)` sends the
        decision on (`_answered`)."""
        future: asyncio.Future[ev.ApprovalDecision] = asyncio.get_running_loop().create_future()
        request = dataclasses.replace(request, future=future)
        self._pending[request.request_id] = request

        def decided(fut: asyncio.Future[ev.ApprovalDecision]) -> None:
            if self._pending.pop(request.request_id, None) is not None and not fut.cancelled():
                self._spawn(self._answered(request, fut.result()))

        future.add_done_callback(decided)
        return request

    async def _answered(self, request: ev.ApprovalRequested, decision: ev.ApprovalDecision) -> None:
        """Send the decision where the run waits for it (RemoteSession: to the server)."""

    async def resolve_input(self, request_id: str, answer: ev.InputAnswer) -> None:
        """The operation: the server checks the content (UsageError: the form stays open for
        another try) and knows which requests are open (NotFoundError for any other)."""
        await super().resolve_input(request_id, answer)
        self._inputs.pop(request_id, None)

    def _ended(self) -> None:
        """The turn's stream is over: nothing is waiting any more."""
        self._running = False
        self._pending.clear()
        self._inputs.clear()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await coro
            except Exception:
                log.warning("background request to %s failed", self.server_name, exc_info=True)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        if self._running:
            self.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        await self.client.aclose()
