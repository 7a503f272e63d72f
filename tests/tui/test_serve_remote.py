"""The TUI's Pilot tests once more, through RemoteSession against a real `auger serve` subprocess:
the same app (`make_app(settings, auger.cli.agents.remote(url, token))`), the same assertions."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import test_approvals
import test_commands
import test_turns
from conftest_tui import Tui

from auger.cli.agents import remote
from auger.tui import make_app
from auger.tui.app import AugerApp
from conftest import AugerEnv
from serve_harness import Server, start_server

Case = Callable[[Any], Awaitable[None]]
CASES: list[Case] = [
    *(getattr(test_turns, name) for name in dir(test_turns) if name.startswith("test_")),
    *(getattr(test_approvals, name) for name in dir(test_approvals) if name.startswith("test_")),
    *(getattr(test_commands, name) for name in dir(test_commands) if name.startswith("test_")),
]


class RemoteTui(Tui):
    """A `Tui` whose app talks to the server instead of an in-process Session."""

    server: Server

    def app(self, *, thread_id: str | None = None, factory: Any = None, **flags: Any) -> AugerApp:
        factory = factory or remote(self.server.url, self.server.token)
        return make_app(self.settings(**flags), factory, thread_id=thread_id)


@pytest.fixture
def remote_tui(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteTui]:
    monkeypatch.setenv("HOME", str(auger_env.home.parent))
    monkeypatch.setenv("AUGER_HOME", str(auger_env.home))
    for key in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(key, raising=False)
    server = start_server(auger_env, "--no-mcp")
    rt = RemoteTui(auger_env)
    rt.server = server
    yield rt
    assert server.stop() == 0


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.removeprefix("test_") for c in CASES])
async def test_pilot_through_remote_session(case: Case, remote_tui: RemoteTui, tmp_path: Path) -> None:
    extra = {"tmp_path": tmp_path} if "tmp_path" in inspect.signature(case).parameters else {}
    await case(remote_tui, **extra)
