"""Lines on `auger acp`'s stdin that are JSON but no JSON-RPC message object (`[]`, a batch, `1`,
`"x"`, `null`), or that nest too deep to parse (auger.core.bounded_json): the ACP library raises
on them and the agent dies (or, on `null`, stops serving). `guard` passes every other line on to
the library unchanged; each of these is answered with JSON-RPC's "Invalid Request" (or "Parse
error") error (id null) and a log line, and the agent keeps serving. Lines that are not JSON at
all are the library's: it logs and skips them.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from auger.core.bounded_json import TooDeep, check_depth

log = logging.getLogger("auger.acp")
INVALID_REQUEST, PARSE_ERROR = -32600, -32700


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
            if error := _refusal(line):
                log.warning("ignored a line on stdin that is no JSON-RPC message: %.200r", line)
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


def _refusal(line: bytes) -> dict[str, Any] | None:
    """The error for a line that is no JSON-RPC message; None for an object, a blank line or a
    line that is not JSON at all."""
    text = line.strip()
    try:
        check_depth(text)
        if not text or text.startswith(b"{"):
            return None
        json.loads(text)
    except TooDeep as exc:
        return {"code": PARSE_ERROR, "message": f"Parse error: {exc}"}
    except ValueError:
        return None
    return {"code": INVALID_REQUEST, "message": "Invalid Request: a JSON-RPC message is a JSON object"}
