"""Server-sent events: `data: {json}\\n\\n` frames, with a comment line as keep-alive while a
turn is quiet (a long shell command, a human deciding) so proxies keep the stream open."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
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
    """Yield `source`'s frames — those ready together as one chunk (fewer writes and wake-ups) —
    and a ping after `interval` seconds without any. One pump task reads `source`; closing this
    generator (the client went away) cancels it, which cancels the turn behind `source`."""
    queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()
    task = asyncio.get_running_loop().create_task(_pump(source, queue))
    try:
        while True:
            try:
                async with asyncio.timeout(interval):
                    batch = [await queue.get()]
            except TimeoutError:
                yield PING
                continue
            while not queue.empty():
                batch.append(queue.get_nowait())
            chunk, end = _drain(batch)
            if chunk:
                yield chunk
            if isinstance(end, BaseException):
                raise end
            if end:
                return
    finally:
        if not task.done():
            task.cancel()


async def _pump(source: AsyncIterator[bytes], queue: asyncio.Queue[bytes | BaseException | None]) -> None:
    """`source`'s frames into `queue`, then None (the end) or what it raised."""
    try:
        async for chunk in source:
            queue.put_nowait(chunk)
    except BaseException as exc:
        queue.put_nowait(exc)
        if isinstance(exc, asyncio.CancelledError):
            raise
    queue.put_nowait(None)


def _drain(batch: list[bytes | BaseException | None]) -> tuple[bytes, bool | BaseException]:
    """(the frames joined, how the source ended: False = not yet, True = done, or what it raised)."""
    chunks: list[bytes] = []
    for item in batch:
        if item is None:
            return b"".join(chunks), True
        if isinstance(item, BaseException):
            return b"".join(chunks), item
        chunks.append(item)
    return b"".join(chunks), False


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
