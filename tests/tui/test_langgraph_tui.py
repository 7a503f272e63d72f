"""The TUI attached to auger hosted on the real `langgraph dev` (`auger --connect URL`, as
`auger.cli.agents.remote` builds it): a turn streams, an approval is asked inline and `y` resumes
the server's run, and an operation the server cannot do says so in one notice."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest_tui import ready, replies, submit, turn, wait_for
from test_commands import notices

from auger.cli.agents import remote
from auger.settings import load_settings
from auger.tui import make_app
from auger.tui.app import AugerApp
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.tool_row import ToolRow
from langgraph_harness import Hosted


def client_app(hosted: Hosted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AugerApp:
    home, project = tmp_path / "client-home", tmp_path / "client-project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AUGER_HOME", str(home))
    settings = load_settings(cwd=project, env={"HOME": str(tmp_path), "AUGER_HOME": str(home)})
    return make_app(settings, remote(hosted.url), first_run=False)


async def test_the_tui_on_a_langgraph_server(
    hosted: Hosted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write = {"file_path": "/tui.txt", "content": "from the tui\n"}
    hosted.script(
        "tui writes tui.txt",
        {"tool_calls": [{"name": "write_file", "args": write}]},
        {"text": "TUI wrote it."},
    )
    app = client_app(hosted, tmp_path, monkeypatch)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "tui writes tui.txt")
        await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt), timeout=60)
        prompt = app.transcript.query_one(ApprovalPrompt)
        await wait_for(pilot, lambda: prompt.has_focus)
        assert not (hosted.env.project / "tui.txt").exists()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy, timeout=60)
        assert (hosted.env.project / "tui.txt").read_text() == "from the tui\n"
        assert app.transcript.query_one(ToolRow).status == "success"
        assert replies(app)[-1] == "TUI wrote it."

        await turn(pilot, "/compact")
        assert any("not supported by a LangGraph Server" in n for n in notices(app)), notices(app)
