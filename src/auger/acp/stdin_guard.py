"""Lines on `auger acp`'s stdin that are JSON but no JSON-RPC message object (`[]`, a batch, `1`,
`"x"`, `null`): the ACP library raises on them and the agent dies (or, on `null`, stops serving).
`guard` passes every other line on to the library unchanged; each of these is answered with
JSON-RPC's "Invalid Request" error (id null) and a log line, and the agent keeps serving. Lines
that are not JSON at all are the library's: it logs and skips them.
"""

from __future__ import annotations

import asyncio
import json
import logging

log = logging.getLogger("auger.acp")
INVALID_REQUEST = -32600


def guard(
    raw: asyncio.StreamReader, writer: asyncio.StreamWriter, limit: int
) -> tuple[asyncio.StreamReader, asyncio.Task[None]]:
    """A reader of `raw`'s lines without the ones no JSON-RPC message can be (answered on
    `writer`), and the task that feeds it (cancel it when done)."""
    out = asyncio.StreamReader(limit=limit)
    return out, asyncio.get_running_loop().create_task(_pump(raw, out, writer), name="acp:stdin")


async def _pump(raw: asyncio.StreamReader, out: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while line := await _line(raw):
            if _invalid(line):
                log.warning("ignored a line on stdin that is no JSON-RPC message: %.200r", line)
                error = {
                    "code": INVALID_REQUEST,
                    "message": "Invalid Request: a JSON-RPC message is a JSON object",
                }
                writer.write(json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode() + b"\n")
            else:
                out.feed_data(line)
    except Exception:  # stdin broke: end of input for the library
        log.exception("reading stdin failed")
    finally:
        out.feed_eof()


async def _line(reader: asyncio.StreamReader) -> bytes:
    """The next line, however long (b"" at the end)."""
    chunks: list[bytes] = []
    while True:
        try:
            chunks.append(await reader.readuntil(b"\n"))
            return b"".join(chunks)
        except asyncio.LimitOverrunError as exc:
            chunks.append(await reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)


def _invalid(line: bytes) -> bool:
    """JSON that is not an object (an object, a blank line or not JSON at all: False)."""
    text = line.strip()
    if not text or text.startswith(b"{"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
