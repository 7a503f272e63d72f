"""A streamed reply the server has already sent in full is handed to the SDK a slice at a time,
with a turn of the event loop after each: the UI sharing the loop keeps running (keys echo)
while the SDK parses a long backlog of SSE events."""

from __future__ import annotations

import asyncio
import itertools

from auger.core.models.provider_http import SLICE, TimeoutClient

BODY = b"data: " + b"x" * 200_000 + b"\n\n"


async def _serve_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A real HTTP server that writes the whole streamed body in one go (a fast model)."""
    await reader.readuntil(b"\r\n\r\n")
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {len(BODY)}\r\n\r\n"
    writer.write(head.encode() + BODY)
    await writer.drain()
    writer.close()


async def test_a_body_sent_at_once_reaches_the_sdk_in_slices_between_turns_of_the_loop() -> None:
    server = await asyncio.start_server(_serve_at_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    turns = 0

    async def ticker() -> None:  # stands for the UI: counts the loop turns it gets
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    sizes: list[int] = []
    turns_seen: list[int] = []
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    async with (
        server,
        TimeoutClient("local", 30.0, "providers.local.request_timeout") as client,
        client.stream("GET", url) as response,
    ):
        tick = asyncio.create_task(ticker())
        async for piece in response.aiter_raw():
            sizes.append(len(piece))
            turns_seen.append(turns)
        tick.cancel()
    assert sum(sizes) == len(BODY)
    assert max(sizes) <= SLICE
    # between any two slices the loop turned: the other task ran
    assert all(later > earlier for earlier, later in itertools.pairwise(turns_seen))
