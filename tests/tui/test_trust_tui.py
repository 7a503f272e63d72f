"""The TUI's trust question (`auger.tui.screens.trust`) and `/status`, through the real Session and
the scripted server: an untrusted project that wants a looser mode and an allow rule is asked about
before the agent is built; "Not now" keeps the walls, "Trust" builds the agent with its settings."""

from __future__ import annotations

from typing import Any

from conftest_tui import Tui, ready, tui, turn, wait_for  # noqa: F401

from auger.trust import ProjectTrust
from auger.tui.screens.choice import ChoiceScreen
from auger.tui.widgets.messages import InfoBlock

WANTS = 'mode = "yolo"\n[permissions]\nallow = ["execute(*)"]\n'


def _untrusted_project(tui: Tui) -> None:
    (tui.here / ".auger").mkdir()
    (tui.here / ".auger" / "config.toml").write_text(WANTS)


async def _question(pilot: Any) -> ChoiceScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ChoiceScreen)
    return screen


async def test_an_untrusted_project_is_asked_about_before_the_agent_starts(tui: Tui) -> None:
    _untrusted_project(tui)
    app = tui.app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await _question(pilot)
        assert app.session is None  # nothing of the project runs before the answer
        body = " ".join(screen.body)
        assert "setting .auger/config.toml: mode" in body
        assert "permissions.allow" in body
        await pilot.press("2")  # Not now
        await ready(pilot)
        assert app.settings.mode == "manual" and not app.settings.trusted
        assert not ProjectTrust(tui.env.home).is_trusted(tui.here)
        await turn(pilot, "/status")
        status = app.transcript.query(InfoBlock).last().source
        assert "manual" in status and "not trusted" in status and "local:scripted-model" in status


async def test_trust_builds_the_agent_with_the_projects_settings(tui: Tui) -> None:
    _untrusted_project(tui)
    app = tui.app()
    async with app.run_test(size=(100, 32)) as pilot:
        await _question(pilot)
        await pilot.press("1")  # Trust
        await ready(pilot)
        assert app.settings.mode == "yolo" and app.settings.get("permissions.allow") == ["execute(*)"]
        assert ProjectTrust(tui.env.home).is_trusted(tui.here)
        await turn(pilot, "/status")
        status = app.transcript.query(InfoBlock).last().source
        assert "yolo" in status and f"trusted ({tui.here})" in status
        assert "| MCP servers |" in status and "| Versions | auger " in status and "Python 3." in status


async def test_a_project_that_wants_nothing_asks_nothing(tui: Tui) -> None:
    (tui.here / ".auger").mkdir()
    (tui.here / ".auger" / "config.toml").write_text('mode = "plan"\n')  # stricter: applies untrusted
    app = tui.app()
    async with app.run_test(size=(100, 32)) as pilot:
        await ready(pilot)
        assert app.settings.mode == "plan" and not isinstance(app.screen, ChoiceScreen)


async def test_opening_a_cloned_folder_runs_nothing_from_its_git_config(tui: Tui) -> None:
    """The TUI lists the project's files with git at start (`@path` completion): the folder's
    `core.fsmonitor` program is not run."""
    import subprocess

    marker = tui.env.home.parent / "fsmonitor-ran"
    hook = tui.here / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\necho\n")
    hook.chmod(0o755)
    git = ["git", "-C", str(tui.here), "-c", "user.email=a@b", "-c", "user.name=a"]
    for args in (["init", "-q"], ["add", "hook.sh"], ["commit", "-qm", "x"]):
        subprocess.run([*git, *args], check=True)
    subprocess.run([*git, "config", "core.fsmonitor", str(hook)], check=True)
    app = tui.app()
    async with app.run_test(size=(100, 32)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "hook.sh" in app.files.files())
    assert not marker.exists()
