"""Server-sent events: `data: {json}\\n\\n` frames, with a comment line as keep-alive while a
turn is quiet (a long shell command, a human deciding) so proxies keep the stream open."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import StreamingResponse

KEEPALIVE_S = 15.0
PING = b": ping\n\n"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def frame(data: dict[str, Any] | str) -> bytes:
    text = (
        data
        if isinstance(data, str)
        else json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    )
    return f"data: {text}\n\n".encode()


async def with_keepalive(source: AsyncIterator[bytes], interval: float = KEEPALIVE_S) -> AsyncIterator[bytes]:
    """Yield `source`'s frames, and a ping after `interval` seconds without one."""
    it = aiter(source)
    pending: asyncio.Future[bytes] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(it))
            done, _ = await asyncio.wait({pending}, timeout=interval)
            if not done:
                yield PING
                continue
            pending = None
            try:
                chunk = done.pop().result()
            except StopAsyncIteration:
                return
            yield chunk
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
        aclose: Callable[[], Any] | None = getattr(it, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(BaseException):
                await aclose()


def sse_response(
    body: AsyncIterator[bytes], *, headers: dict[str, str] | None = None, on_close: Any = None
) -> StreamingResponse:
    from starlette.background import BackgroundTask

    return StreamingResponse(
        with_keepalive(body),
        media_type="text/event-stream",
        headers={**SSE_HEADERS, **(headers or {})},
        background=BackgroundTask(on_close) if on_close is not None else None,
    )
