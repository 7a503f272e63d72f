"""The transcript scrolls from the keyboard (PageUp/PageDown, Shift+Up/Down, Ctrl+Home/End) while
the prompt keeps the focus and its text; the keys are listed in /help and can be remapped."""

from __future__ import annotations

from conftest_tui import Tui, ready, tui, turn, wait_for  # noqa: F401

from auger.tui.widgets.messages import InfoBlock

LONG = {"text": "\n\n".join(f"Paragraph {i} of a long answer." for i in range(120))}


async def test_page_line_top_and_end_keys_scroll_the_transcript_from_the_prompt(tui: Tui) -> None:
    tui.llm.add(LONG)
    app = tui.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "write a long answer")
        t = app.transcript
        await wait_for(pilot, lambda: t.max_scroll_y > 100 and t.scroll_y == t.max_scroll_y)
        app.prompt.load_text("half a thought")
        app.prompt.move_cursor((0, 4))
        bottom, page = t.max_scroll_y, t.scrollable_content_region.height
        await pilot.press("pageup")
        await wait_for(pilot, lambda: t.scroll_y == bottom - page)
        await pilot.press("shift+up")
        await wait_for(pilot, lambda: t.scroll_y == bottom - page - 1)
        await pilot.press("shift+down", "shift+down")
        await wait_for(pilot, lambda: t.scroll_y == bottom - page + 1)
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: t.scroll_y == 0)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: t.scroll_y == page)
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: t.scroll_y == t.max_scroll_y)
        # the prompt kept the focus, its text and its cursor; Home / End are still its own
        assert app.focused is app.prompt and app.prompt.text == "half a thought"
        assert app.prompt.cursor_location == (0, 4)
        await pilot.press("end")
        assert app.prompt.cursor_location == (0, len("half a thought")) and t.scroll_y == t.max_scroll_y


async def test_scroll_keys_are_remappable_and_listed_in_help(tui: Tui) -> None:
    tui.env.write_config('[tui.keys]\n"app.scroll_top" = "f9"\n')
    tui.llm.add(LONG)
    app = tui.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "write a long answer")
        await turn(pilot, "/help")
        keys = app.transcript.query(InfoBlock).last().source
        for name in ("PageUp / PageDown", "Shift+Up / Shift+Down", "Ctrl+Home / Ctrl+End"):
            assert name in keys
        t = app.transcript
        await wait_for(pilot, lambda: t.max_scroll_y > 100 and t.scroll_y == t.max_scroll_y)
        await pilot.press("f9")
        await wait_for(pilot, lambda: t.scroll_y == 0)
