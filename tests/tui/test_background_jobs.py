"""Pilot: the agent's background commands in the TUI — the line under the todo list while one
runs, `/ps` lists them, `/ps stop ID` ends one (the line goes), and quitting ends the rest."""

from __future__ import annotations

from pathlib import Path

from conftest_tui import Tui, ready, tui, turn, wait_for  # noqa: F401

from auger.tui.widgets.jobs import JobsLine
from auger.tui.widgets.messages import InfoBlock, Notice


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def test_the_line_ps_and_stop(tui: Tui) -> None:
    start = "echo $$ > a.pid; exec sleep 600"
    tui.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": start, "background": True}}]},
        {
            "tool_calls": [
                {"name": "execute", "args": {"command": "sleep 700 & echo $! > b.pid", "background": True}}
            ]
        },
        {"text": "Both run."},
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "start two")
        line = app.main_screen.query_one(JobsLine)
        await wait_for(pilot, lambda: "2 background commands" in str(line.render()))
        assert "bg1 echo $$ > a.pid; exec sleep 600" in str(line.render()) and line.display
        await turn(pilot, "/ps")
        table = app.transcript.query(InfoBlock).last().source
        assert "bg1" in table and "bg2" in table and table.count("running for") == 2
        await turn(pilot, "/ps stop bg1")
        notices = [str(n.render()) for n in app.transcript.query(Notice)]
        assert any("Stopped bg1: echo $$ > a.pid" in n for n in notices)
        await wait_for(pilot, lambda: "1 background command:" in str(line.render()))
        assert "stopped" in app.transcript.query(InfoBlock).last().source
        await turn(pilot, "/ps stop bg7")
        assert any("no background command 'bg7'" in str(n.render()) for n in app.transcript.query(Notice))
        pid_b = int((tui.env.project / "b.pid").read_text())
        assert _alive(pid_b)
    assert not _alive(int((tui.env.project / "a.pid").read_text()))
    await _gone(pid_b)


async def _gone(pid: int) -> None:
    import asyncio

    for _ in range(200):
        if not _alive(pid):
            return
        await asyncio.sleep(0.05)  # polling a process: nothing can notify us
    raise AssertionError(f"{pid} outlived the session")
