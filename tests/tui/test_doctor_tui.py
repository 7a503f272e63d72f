"""Pilot: /doctor shows the checks of the agent's side (model, provider, trust, MCP, sandbox,
store) and this terminal's, with the fix for what is wrong."""

from __future__ import annotations

from conftest_tui import Tui, ready, tui, turn  # noqa: F401

from auger.tui.widgets.messages import InfoBlock


async def test_doctor_lists_checks_and_fixes(tui: Tui) -> None:
    tui.env.write_config('[mcp.servers.gone]\ncommand = "no-such-mcp-server-binary"\n')
    app = tui.app()
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/doctor")
        table = app.transcript.query(InfoBlock).last().source
        assert "local:scripted-model: credentials present" in table
        assert f"{tui.env.llm.base_url}/models answers" in table
        assert "mcp gone" in table and "no-such-mcp-server-binary is not on PATH" in table
        assert "Install it or fix `command`." in table and "terminal" in table
        assert "1 problem to fix." in table
