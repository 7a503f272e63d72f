"""The MCP client side auger adds to the SDK's `ClientSession`: it tells a server when auger gives
up on a request, answers `roots/list` with the project, and forwards progress to the tool's row.

* `notifications/cancelled`: sent when a request times out or its caller is cancelled (Esc in
  the TUI, a headless `--timeout`), so the server can stop the work (the SDK only stops waiting).
  `initialize` is never cancelled (the spec forbids it).
* `roots`: the project root, as a `file://` URI.
* progress: `progress_sink()` gives the callback for a tool call in flight. The middleware that
  runs the call sets `CALL` (its tool call id and the stream writer); each `notifications/progress`
  becomes a `tool_progress` custom stream event (`auger.core.events.ToolProgress`). The SDK calls
  it from the session's receive task, so the writer runs in a copy of the call's context (it
  reads the graph's config from there).

`mcp` is imported only by the functions that need it (the module itself stays cheap).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("auger.mcp")

REQUEST_TIMEOUT = 408  # what the SDK's send_request raises on its read timeout

# (tool call id, stream writer) of the MCP tool call running in this context
CALL: contextvars.ContextVar[tuple[str, Callable[[Any], None]] | None] = contextvars.ContextVar(
    "auger_mcp_call", default=None
)

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


def progress_sink() -> ProgressFn | None:
    """A progress callback for the tool call running now (None outside one)."""
    current = CALL.get()
    if current is None:
        return None
    call_id, writer = current
    context = contextvars.copy_context()  # the writer reads the graph's config from its context

    async def report(progress: float, total: float | None, message: str | None) -> None:
        with contextlib.suppress(Exception):  # a closed stream must not fail the call
            context.copy().run(
                writer,
                {
                    "auger_event": "tool_progress",
                    "call_id": call_id,
                    "progress": progress,
                    "total": total,
                    "message": message,
                },
            )

    return report


def roots_callback(roots: list[Path]) -> Callable[[Any], Awaitable[Any]]:
    """`roots/list`: the project (and any other folder auger was given), as file:// URIs."""

    async def list_roots(_context: Any) -> Any:
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(roots=[Root(uri=p.resolve().as_uri(), name=p.name) for p in roots])  # type: ignore[arg-type]

    return list_roots


@functools.cache
def client_session_class() -> type[Any]:
    """`ClientSession` with `notifications/cancelled` (built on first use: `mcp` loads lazily)."""
    from mcp import ClientSession, types
    from mcp.shared.exceptions import McpError

    class AugerClientSession(ClientSession):
        """Sends `notifications/cancelled` for a request auger stopped waiting for."""

        _cancels: set[asyncio.Task[None]]

        async def send_request(self, request: Any, *args: Any, **kwargs: Any) -> Any:
            request_id = self._request_id  # the id super() gives it: assigned before its first await
            cancellable = not isinstance(request.root, types.InitializeRequest)
            try:
                return await super().send_request(request, *args, **kwargs)
            except McpError as exc:
                if cancellable and exc.error.code == REQUEST_TIMEOUT:
                    self._cancel_later(request_id, "timed out")
                raise
            except asyncio.CancelledError as exc:  # Esc, or auger's own timeout (its message says so)
                if cancellable:
                    self._cancel_later(request_id, str(exc.args[0]) if exc.args else "cancelled by the user")
                raise

        def _cancel_later(self, request_id: int, reason: str) -> None:
            """A new task: the caller's own task is being cancelled and cannot await anything."""
            if not hasattr(self, "_cancels"):
                self._cancels = set()
            task = asyncio.get_running_loop().create_task(self._send_cancelled(request_id, reason))
            self._cancels.add(task)
            task.add_done_callback(self._cancels.discard)

        async def _send_cancelled(self, request_id: int, reason: str) -> None:
            note = types.CancelledNotification(
                params=types.CancelledNotificationParams(requestId=request_id, reason=reason)
            )
            try:
                await self.send_notification(types.ClientNotification(note))
            except Exception:  # the server is gone: nothing left to cancel
                log.debug("could not send notifications/cancelled for %s", request_id, exc_info=True)

    return AugerClientSession
