"""TUI test helpers: an in-process `AugerApp` wired to the real Session and the scripted
OpenAI-compatible server (the `auger_env` fixture), plus waits on conditions and workers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from auger.cli.agents import LocalOptions, local
from auger.settings import Settings, load_settings
from auger.tui import make_app
from auger.tui.app import AugerApp
from auger.tui.typing_pace import pace_of
from auger.tui.widgets.messages import AssistantMessage
from conftest import AugerEnv
from conftest_llm import typed


@dataclass
class Tui:
    env: AugerEnv

    @property
    def llm(self) -> Any:
        return self.env.llm

    @property
    def here(self) -> Path:
        """The folder the TUI runs in (the agent's project, unless the agent is remote)."""
        return self.env.project

    def settings(self, **flags: Any) -> Settings:
        return load_settings(cwd=self.env.project, env=self.env.env, flags=flags)

    def app(self, *, thread_id: str | None = None, factory: Any = None, **flags: Any) -> AugerApp:
        from auger.cli.trust import project_wants

        return make_app(
            self.settings(**flags),
            factory or local(LocalOptions(use_mcp=False)),
            thread_id=thread_id,
            project_wants=project_wants,  # as `auger` does (not over --connect)
        )

    def last_user_text(self, index: int = -1) -> str:
        messages = self.llm.requests[index]["messages"]
        users = [m for m in messages if m["role"] == "user"]
        return typed(users[-1]["content"])


@pytest.fixture
def tui(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Tui:
    home = auger_env.home.parent
    monkeypatch.setenv("HOME", str(home))  # ~ in the status bar is the test's folder
    monkeypatch.setenv("AUGER_HOME", str(auger_env.home))
    for key in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(key, raising=False)
    return Tui(auger_env)


async def wait_for(pilot: Pilot[Any], condition: Callable[[], Any], timeout: float = 15.0) -> None:
    """Let the app run until `condition()` holds (fails the test after `timeout`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s: {condition}")
        await pilot.pause(0.01)


async def ready(pilot: Pilot[Any]) -> AugerApp:
    """Wait for the boot worker: the Session exists."""
    app = pilot.app
    assert isinstance(app, AugerApp)
    await wait_for(pilot, lambda: app.session is not None or app.state.error, timeout=30)
    await app.workers.wait_for_complete()
    assert app.session is not None, app.state.error
    return app


async def submit(pilot: Pilot[Any], text: str) -> None:
    app = pilot.app
    assert isinstance(app, AugerApp)
    app.prompt.focus()
    app.prompt.load_text(text)
    await pilot.press("enter")


def send_nowait(app: AugerApp, text: str) -> None:
    """Type `text` and press Enter without waiting for the app to go idle (Pilot.press waits for
    idle, which a streaming reply delays): what a user typing during a turn does."""
    app.prompt.load_text(text)
    app.prompt.action_submit()


async def reply_streaming(pilot: Pilot[Any], app: AugerApp, text: str) -> AssistantMessage:
    """Send `text` without waiting and return the reply once its first text is in (it streams on)."""
    send_nowait(app, text)
    await wait_for(pilot, lambda: app.transcript.query(AssistantMessage))
    message = app.transcript.query(AssistantMessage).last()
    await wait_for(pilot, lambda: message.source)
    return message


async def type_while_busy(app: AugerApp, most: int, *, every: float = 0.015, read: bool = False) -> int:
    """Type "x" every `every` s while the turn runs (at most `most` keys), each key posted as the
    terminal driver posts it (`read`: and noted as read first, as its input thread does); how
    many were typed."""
    pace = pace_of(app)
    typed = 0
    while app.busy and typed < most:
        if read:
            pace.arrived()
        app.post_message(events.Key("x", "x"))
        typed += 1
        await asyncio.sleep(every)
    return typed


async def turn(pilot: Pilot[Any], text: str) -> AugerApp:
    """Send `text` and wait until the turn (and anything it queued) is over."""
    await submit(pilot, text)
    app = pilot.app
    assert isinstance(app, AugerApp)
    await app.workers.wait_for_complete()
    await wait_for(pilot, lambda: not app.busy)
    return app


def replies(app: AugerApp) -> list[str]:
    return [m.text for m in app.transcript.query(AssistantMessage)]


def write_skill(project: Path, name: str, description: str, body: str) -> None:
    folder = project / ".auger" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
