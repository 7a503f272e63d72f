"""The TUI draws escape sequences and control characters from the model's text, a tool's result
and a tool call's name as control pictures (`␛`), never as bytes the terminal would obey."""

from __future__ import annotations

import re

from conftest_tui import Tui, ready, submit, tui  # noqa: F401

from auger.tui.widgets.tool_row import ToolRow

HOSTILE = "title\x1b]0;pwned\x07 clear\x1b[2J clip\x1b]52;c;cm0=\x07 csi\x9b31m"
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """Every line the screen shows, as the segments the driver would write."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_transcript_shows_controls_as_pictures(tui: Tui) -> None:
    tui.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": f"printf '%s\\n' '{HOSTILE}'"}}]},
        {"text": f"Said: {HOSTILE}"},
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.transcript.query_one(ToolRow).status == "success"
        shown = _screen_text(app)
        assert not OBEYED.findall(shown), OBEYED.findall(shown)
        assert "Said: title␛]0;pwned␇ clear␛[2J clip␛]52;c;cm0=␇ csi␛[31m" in shown
