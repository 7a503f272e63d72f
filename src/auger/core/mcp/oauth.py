"""OAuth for HTTP MCP servers, with the `mcp` SDK's client auth (`OAuthClientProvider`).

An HTTP/SSE server without an `Authorization` header of its own gets an OAuth provider: when the
server answers 401, the SDK discovers its authorization server, registers auger as a client,
and sends the user's browser to authorise (`webbrowser`, so `$BROWSER` is honoured; the URL is
also a notice). The browser comes back to a one-shot listener on 127.0.0.1; the code is
exchanged for tokens. Tokens and the client registration are kept per server (name and URL) in
`$AUGER_HOME/mcp-auth/NAME-HASH.json`, mode 0600 in a 0700 folder, so the next start needs no
browser. `mcp` is imported only when a provider is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from auger.core.mcp.names import safe
from auger.settings import write_atomic

AUTH_DIR = "mcp-auth"
_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    b"auger: authorised, you can close this tab.\n"
)


def token_file(home: Path, server: str, url: str) -> Path:
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]
    return Path(home) / AUTH_DIR / f"{safe(server)}-{digest}.json"


class FileTokenStorage:
    """The SDK's `TokenStorage`, in one JSON file written atomically with mode 0600."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: dict[str, Any]) -> None:
        data = self._read()
        data[key] = value
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(data), new_mode=0o600)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        raw = self._read().get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: Any) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self._read().get("client")
        return OAuthClientInformationFull.model_validate(raw) if raw else None

    async def set_client_info(self, client_info: Any) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LoopbackRedirect:
    """Where the browser lands after the user authorises: `http://127.0.0.1:PORT/callback`."""

    def __init__(self, notify: Callable[[str], None], server: str) -> None:
        self.port = _free_port()
        self.uri = f"http://127.0.0.1:{self.port}/callback"
        self.notify, self.server = notify, server
        self._result: asyncio.Future[tuple[str, str | None]] | None = None
        self._listener: asyncio.Server | None = None

    async def open_browser(self, url: str) -> None:
        """The SDK's redirect handler: listen, then send the browser to the authorization URL."""
        self._result = asyncio.get_running_loop().create_future()
        self._listener = await asyncio.start_server(self._answer, "127.0.0.1", self.port)
        self.notify(f"MCP server '{self.server}' needs authorisation: open {url}")
        await asyncio.to_thread(webbrowser.open, url)

    async def wait_for_code(self) -> tuple[str, str | None]:
        """The SDK's callback handler: (code, state) from the browser's redirect."""
        assert self._result is not None, "the browser was not opened"
        try:
            return await self._result
        finally:
            if self._listener is not None:
                self._listener.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            line = (await reader.readline()).decode("latin-1")
            target = line.split(" ")[1] if line.count(" ") >= 2 else ""
            query = parse_qs(urlsplit(target).query)
            writer.write(_PAGE)
            await writer.drain()
            if self._result is not None and not self._result.done():
                if "code" in query:
                    state = query.get("state") or [""]
                    self._result.set_result((query["code"][0], state[0] or None))
                else:
                    why = (query.get("error_description") or query.get("error") or ["no code"])[0]
                    self._result.set_exception(RuntimeError(f"authorisation refused: {why}"))
        writer.close()


def oauth_provider(home: Path, server: str, url: str, notify: Callable[[str], None]) -> Any:
    """An `httpx.Auth` doing the OAuth flow for `server` at `url` (tokens under `home`)."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    redirect = LoopbackRedirect(notify, server)
    metadata = OAuthClientMetadata(
        client_name="auger",
        redirect_uris=[redirect.uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=FileTokenStorage(token_file(home, server, url)),
        redirect_handler=redirect.open_browser,
        callback_handler=redirect.wait_for_code,
    )
