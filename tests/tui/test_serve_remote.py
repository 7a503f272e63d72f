"""The TUI's Pilot tests once more, through RemoteSession against a real `auger serve` subprocess:
the same app (`make_app(settings, auger.cli.agents.remote(url, token), first_run=False)`, as
`auger --connect` builds it), the same assertions. Client and server are separate: the server runs
in the `AugerEnv`'s home and project, the client in a home with no config at all and a project
folder of its own, so whatever the agent offers must come from the server.

And the cases that only exist remotely: a skill, a provider and `!command` of the server's, a
client without any config, credentials checked where the agent runs."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import test_approvals
import test_commands
import test_input
import test_plan_mode
import test_rewind
import test_turns
from conftest_tui import Tui, ready, turn, wait_for, write_skill
from test_commands import notices

from auger.cli.agents import remote
from auger.settings import Settings, load_settings
from auger.tui import make_app
from auger.tui.app import AugerApp
from auger.tui.format import short_path
from auger.tui.screens.first_run import FirstRunScreen
from auger.tui.widgets.messages import ShellBlock, UserMessage
from auger.tui.widgets.start_header import StartHeader
from conftest import AugerEnv
from serve_harness import Server, start_server

Case = Callable[[Any], Awaitable[None]]
CASES: list[Case] = [
    *(getattr(test_turns, name) for name in dir(test_turns) if name.startswith("test_")),
    test_input.test_at_path_completes_fuzzily_and_inlines_the_file,  # the server's files
    *(getattr(test_approvals, name) for name in dir(test_approvals) if name.startswith("test_")),
    *(getattr(test_commands, name) for name in dir(test_commands) if name.startswith("test_")),
    *(getattr(test_plan_mode, name) for name in dir(test_plan_mode) if name.startswith("test_")),
    *(
        getattr(test_rewind, name)
        for name in dir(test_rewind)
        if name.startswith("test_") and name != "test_unified_diff_lines_are_told_apart"
    ),
]
# rewrites the config between two apps: a server reads it once, at its start
CASES.remove(test_commands.test_tools_says_how_to_add_web_search_until_an_engine_is_set)


class RemoteTui(Tui):
    """A `Tui` whose app runs in a client folder of its own and talks to the server's agent."""

    server: Server
    client_home: Path  # the client's AUGER_HOME: empty, no config.toml
    client_project: Path

    @property
    def here(self) -> Path:
        return self.client_project

    def settings(self, **flags: Any) -> Settings:
        env = {"HOME": str(self.client_home.parent), "AUGER_HOME": str(self.client_home)}
        return load_settings(cwd=self.client_project, env=env, flags=flags)

    def app(self, *, thread_id: str | None = None, factory: Any = None, **flags: Any) -> AugerApp:
        factory = factory or remote(self.server.url, self.server.token)
        return make_app(self.settings(**flags), factory, thread_id=thread_id, first_run=False)


def _remote_tui(auger_env: AugerEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RemoteTui:
    """The server on `auger_env`; the client a user on another machine: an empty AUGER_HOME (no
    config.toml) and a project of its own."""
    rt = RemoteTui(auger_env)
    rt.client_home, rt.client_project = tmp_path / "client" / "auger-home", tmp_path / "client" / "project"
    rt.client_home.mkdir(parents=True)
    rt.client_project.mkdir()
    monkeypatch.setenv("HOME", str(rt.client_home.parent))  # ~ in the status bar is the client's
    monkeypatch.setenv("AUGER_HOME", str(rt.client_home))
    for key in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(key, raising=False)
    rt.server = start_server(auger_env, "--no-mcp")
    return rt


@pytest.fixture
def remote_tui(auger_env: AugerEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteTui]:
    rt = _remote_tui(auger_env, tmp_path, monkeypatch)
    yield rt
    assert rt.server.stop() == 0


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.removeprefix("test_") for c in CASES])
async def test_pilot_through_remote_session(
    case: Case, remote_tui: RemoteTui, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    wants = inspect.signature(case).parameters
    # the server keeps its threads in its own SQLite file (the local variant covers PostgreSQL)
    given = {"tmp_path": tmp_path, "database": "sqlite", "request": request}
    await case(remote_tui, **{name: value for name, value in given.items() if name in wants})


async def test_a_client_without_config_connects_instead_of_asking_for_a_model(remote_tui: RemoteTui) -> None:
    assert not (remote_tui.client_home / "config.toml").exists()
    remote_tui.llm.add({"text": "from the server's model"})
    app = remote_tui.app()
    assert app.settings.model is None  # nothing configured on this side
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, FirstRunScreen)
        assert app.status.model == "local:scripted-model"  # the server's
        # the start screen and the status bar name where the agent works, not this folder
        header = app.transcript.query_one(StartHeader)
        shown = str(header.render())
        assert "local:scripted-model" in shown and "not configured" not in shown
        server_project = str(remote_tui.env.project)  # whole: `~` would be the client's home
        assert header.project == app.status.cwd == server_project
        assert server_project in shown and short_path(remote_tui.here) not in shown
        await turn(pilot, "hello")
        assert remote_tui.llm.requests[-1]["model"] == "scripted-model"


async def test_a_skill_only_the_server_has_runs_as_a_command(remote_tui: RemoteTui) -> None:
    write_skill(remote_tui.env.project, "deploy", "Deploy the service", "Run the deploy checklist for it.")
    assert not (remote_tui.here / ".auger").exists()
    remote_tui.llm.add({"text": "Deploying."})
    app = remote_tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/deploy api")
        assert not [n for n in notices(app) if "Unknown command" in n]
        assert "Run the deploy checklist for it." in remote_tui.last_user_text()
        assert [m.text for m in app.transcript.query(UserMessage)] == ["/deploy api"]


async def test_model_switch_to_a_provider_only_the_server_has(
    auger_env: AugerEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auger_env.write_config(
        f'[providers.onserver]\nbase_url = "{auger_env.llm.base_url}"\nmodels = ["special"]\n'
    )
    rt = _remote_tui(auger_env, tmp_path, monkeypatch)
    try:
        rt.llm.add({"text": "first"}, {"text": "from the special model"})
        app = rt.app()
        async with app.run_test(size=(100, 40)) as pilot:
            await ready(pilot)
            await turn(pilot, "one")
            await turn(pilot, "/model")  # the choices are the server's
            assert "onserver:special" in app.screen.values  # type: ignore[attr-defined]
            await pilot.press("escape")
            await turn(pilot, "/model onserver:special")
            assert app.status.model == "onserver:special"
            await turn(pilot, "two")
        assert [r["model"] for r in rt.llm.requests] == ["scripted-model", "special"]
    finally:
        assert rt.server.stop() == 0


async def test_credentials_are_checked_where_the_agent_runs(
    remote_tui: RemoteTui, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-only-on-the-client")  # the server has none
    app = remote_tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/model openai:gpt-4.1")
        assert "OPENAI_API_KEY is not set" in notices(app)[-1]
        assert app.status.model == "local:scripted-model"


async def test_shell_command_runs_in_the_servers_project(remote_tui: RemoteTui) -> None:
    (remote_tui.env.project / "on-the-server.txt").write_text("x")
    (remote_tui.here / "on-the-client.txt").write_text("y")
    app = remote_tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for command in ("!pwd", "!ls"):
            await turn(pilot, command)
            await wait_for(pilot, lambda: not app.transcript.query(ShellBlock).last().has_class("-running"))
        pwd, ls = (
            str(block.query_one(".shell-output").render()) for block in app.transcript.query(ShellBlock)
        )
        assert str(remote_tui.env.project.resolve()) in pwd and str(remote_tui.here) not in pwd
        assert "on-the-server.txt" in ls and "on-the-client.txt" not in ls
