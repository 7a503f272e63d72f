"""Pilot: /context shows what fills the window by part — the system prompt, skills, memory
(AGENTS.md), tool schemas, messages, tool results — measured on the request the model last got,
with a bar; before any call in this session, the saved messages only."""

from __future__ import annotations

import re

from conftest_tui import Tui, ready, tui, turn  # noqa: F401

from auger.tui.widgets.messages import InfoBlock


def _tokens(table: str, part: str) -> int:
    found = re.search(rf"{re.escape(part)} \| ~([\d.]+)(k?)", table)
    assert found, (part, table)
    return int(float(found[1]) * (1000 if found[2] else 1))


async def test_context_by_part(tui: Tui) -> None:
    (tui.env.project / "AGENTS.md").write_text("# Rules\n" + "Always write tests first. " * 200 + "\n")
    (tui.env.project / "big.txt").write_text("data line\n" * 2000)
    tui.env.llm.add(
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "/big.txt", "limit": 1500}}]},
        {"text": "Read it."},
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/context")
        first = app.transcript.query(InfoBlock).last().source
        assert "No model call in this session yet" in first
        await turn(pilot, "read big.txt")
        await turn(pilot, "/context")
        table = app.transcript.query(InfoBlock).last().source
        assert "No model call" not in table and "█" in table
        assert _tokens(table, "memory (AGENTS.md)") > 1000  # 5,000 characters of rules
        assert _tokens(table, "tool results") > 3000  # 1,500 numbered lines
        assert _tokens(table, "tool schemas") > 1000 and _tokens(table, "system prompt") > 500
        assert re.search(r"\*\*~[\d.]+k tokens", table)
