"""The first exchange of `auger acp`, answered with the standard library only.

An editor spawns `auger acp` and sends `initialize` at once; the answer is static (what auger
can do does not depend on the model or the config), so it is written before the ACP package,
LangChain or the Runtime are imported. `read_initialize(fd)` reads the first JSON-RPC line from
stdin; when it is `initialize`, `answer(request)` is the response and the client's capabilities
are kept for the sessions. Whatever else was read (the next requests) goes to the real
connection, which also answers a later `initialize` with the same `initialize_result`.

`promptCapabilities.image` is true: the answer is given per connection, before the config that
names a session's model is read (`auger.settings` alone would cost most of the 150 ms budget),
and a session's model can change (`/model`, a project's config). A prompt with images to a
session whose model takes none (`auger.core.models.images`) is refused, before anything is sent,
with a JSON-RPC error naming the model and the setting that says it does (`auger.acp.prompt`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from auger.core.bounded_json import loads

PROTOCOL_VERSION = 1  # the ACP version auger speaks (agent-client-protocol 0.12: schema v1)
MAX_LINE = 50 * 1024 * 1024  # a first line longer than this is not an initialize request


@dataclass
class Handshake:
    request: dict[str, Any] | None = None  # the initialize request, None when it came otherwise
    rest: bytes = b""  # bytes read after it: the start of the next messages
    client_capabilities: dict[str, Any] = field(default_factory=dict)


def initialize_result(client_version: Any, version: str) -> dict[str, Any]:
    """The `initialize` result: the protocol version both speak and what auger offers."""
    wanted = client_version if isinstance(client_version, int) and client_version >= 0 else PROTOCOL_VERSION
    return {
        "protocolVersion": min(wanted, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": False, "sse": False},
            "sessionCapabilities": {"list": {}},
        },
        "agentInfo": {"name": "auger", "title": "auger", "version": version},
        "authMethods": [],
    }


def read_initialize(fd: int = 0) -> Handshake:
    """Read stdin up to the end of the first line; keep it when it is `initialize`."""
    buf = b""
    while b"\n" not in buf and len(buf) < MAX_LINE:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
    line, sep, rest = buf.partition(b"\n")
    try:
        message = loads(line)
    except ValueError:  # incl. too deep: answered by auger.acp.stdin_guard
        return Handshake(rest=buf)
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return Handshake(rest=buf)
    caps = _table(_table(message.get("params")).get("clientCapabilities"))
    return Handshake(message, rest if sep else b"", caps)


def answer(request: dict[str, Any], version: str) -> bytes:
    """The JSON-RPC response line to an initialize `request`."""
    result = initialize_result(_table(request.get("params")).get("protocolVersion"), version)
    return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n"


def _table(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]
