"""OAuth for HTTP MCP servers against a LOCAL auth-enabled server (tests/mcp_servers/oauth_server.py:
the `mcp` SDK's authorization server pieces, approving at once). The "browser" is `$BROWSER`, a
script that follows the redirects as a browser would, back to auger's loopback listener."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_mcp import HERE, by_name, call, free_port, running, status_of, text

from auger.core.mcp.config import McpServerConfig

OAUTH = str(HERE / "oauth_server.py")


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The auth-enabled server (one for the module): its /mcp URL and its stderr log."""
    port = free_port()
    log = tmp_path_factory.mktemp("oauth") / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, OAUTH, str(port)], stderr=err)
    try:
        deadline = time.monotonic() + 20
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert time.monotonic() < deadline, "the OAuth test server did not come up"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        proc.terminate()
        proc.wait(10)


def browser(tmp_path: Path, name: str, body: str) -> str:
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


async def test_oauth_flow_tokens_kept_0600_and_reused(
    tmp_path: Path, secured: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, log = secured
    home = tmp_path / "home"
    visited = tmp_path / "visited"
    follow = f'echo "$1" >> {visited}\nexec curl -sfL -o /dev/null "$1"'
    monkeypatch.setenv("BROWSER", browser(tmp_path, "follow.sh", follow))
    notices: list[str] = []
    server = McpServerConfig("secured", "http", url=url)
    async with running([server], tmp_path, oauth_home=home, on_notice=notices.append) as manager:
        assert status_of(manager, "secured")["status"] == "connected", manager.status()
        assert text(await call(by_name(manager)["mcp__secured__whoami"])) == "authorised"
    assert any("needs authorisation: open http://127.0.0.1:" in n for n in notices)
    assert "/authorize?" in visited.read_text()
    [token_file] = list((home / "mcp-auth").iterdir())
    assert token_file.name.startswith("secured-") and token_file.stat().st_mode & 0o777 == 0o600
    assert (home / "mcp-auth").stat().st_mode & 0o777 == 0o700
    assert '"access_token"' in token_file.read_text()

    # the next start uses the stored token: no browser, no new token
    monkeypatch.setenv("BROWSER", browser(tmp_path, "fail.sh", f"echo again >> {visited}\nexit 1"))
    async with running([server], tmp_path, oauth_home=home) as manager:
        assert text(await call(by_name(manager)["mcp__secured__whoami"])) == "authorised"
    assert "again" not in visited.read_text()
    assert [ln for ln in log.read_text().splitlines() if ln.startswith("issued ")] == ["issued 1"]


async def test_without_oauth_the_server_refuses(tmp_path: Path, secured: tuple[str, Path]) -> None:
    async with running([McpServerConfig("secured", "http", url=secured[0])], tmp_path) as manager:
        got = status_of(manager, "secured")
        assert got["status"] == "failed" and "401" in got["error"], got
