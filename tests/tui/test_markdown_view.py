"""Replies on screen: the real app, the real Session and the scripted server, asserting on what the
widgets render (their lines), on a real README from bench/corpus, and on selection and pruning."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
from conftest_tui import Tui, ready, replies, send_nowait, tui, turn, wait_for  # noqa: F401
from textual._compositor import Compositor

from auger import __version__
from auger.tui.markdown.blocks import Chunk
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.messages import AssistantMessage
from auger.tui.widgets.start_header import StartHeader
from auger.tui.widgets.transcript import PrunedNote

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
FAITHFUL = (
    "Use `List<int>` here, and Vec<T> there; <b>not bold</b> & more.\n\n"
    "| Type | Example | Notes |\n|---|---|---|\n| union | `int \\| str` | a \\| b |\n"
)
WIDE = (
    "| Property | Type | Default | Required | Description | Since |\n|---|---|---|---|---|---|\n"
    "| timeout | number | 0 | no | How long to wait before the request is aborted, in ms | 0.1 |\n"
)


def shown(app) -> str:  # type: ignore[no-untyped-def]
    """The last reply as it is on screen."""
    message = app.transcript.query(AssistantMessage).last()
    return "\n".join(line for segment in message.query(MarkdownLines) for line in segment.plain_lines)


async def test_generics_html_and_pipes_are_shown_as_typed(tui: Tui) -> None:
    tui.llm.add({"text": FAITHFUL})
    app = tui.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "show types")
        text = shown(app)
        for expected in ("List<int>", "Vec<T>", "<b>not bold</b> & more", "int | str", "a | b"):
            assert expected in text
        assert "Type  │ Example" in text


async def test_a_wide_table_keeps_every_column_at_width_60(tui: Tui) -> None:
    tui.llm.add({"text": WIDE})
    app = tui.app()
    async with app.run_test(size=(67, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "a table")
        message = app.transcript.query(AssistantMessage).last()
        assert message.size.width <= 62
        text = shown(app)
        for word in ("Property", "Type", "Default", "Required", "Description", "Since", "aborted", "0.1"):
            assert word in text


async def test_a_long_real_reply_is_a_few_cheap_widgets(tui: Tui) -> None:
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": source})
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "the changelog")
        message = app.transcript.query(AssistantMessage).last()
        assert message.text == source and message.source == source  # all of it, in the widgets
        widgets = len(list(message.walk_children()))
        assert 10 <= widgets <= 30  # segments of ~4 KB (a Markdown widget made ~5,000 here)
        assert "Version 26.10.1" in shown(app) and "Version 25.9.0" in shown(app)


async def test_a_long_reply_renders_each_finished_chunk_once_and_outside_the_layout_pass(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layout pass holds every key typed meanwhile: a reply's chunks render when a flush
    gives them to a segment, at the reply's width, and the scrollbar appearing (the reply grew
    past the screen) does not change that width."""
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": source})
    renders: list[tuple[Chunk, bool]] = []  # (chunk, inside a layout pass)
    layout = [False]
    reflow, prerender = Compositor.reflow, MarkdownLines.prerender

    def reflowing(self: Compositor, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        layout[0] = True
        try:
            return reflow(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            layout[0] = False

    def rendering(chunk: Chunk, width: int):  # type: ignore[no-untyped-def]
        renders.append((chunk, layout[0]))
        return prerender(chunk, width)

    monkeypatch.setattr(Compositor, "reflow", reflowing)
    monkeypatch.setattr(MarkdownLines, "prerender", staticmethod(rendering))
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "the changelog")
        message = app.transcript.query(AssistantMessage).last()
        assert message.source == source
        segments = message.segments
        finished = {id(chunk): segment for segment in segments for chunk in segment.chunks}
        assert len(finished) > 100
        # (the open block renders again on every flush, by design: only finished chunks count)
        counts = Counter(id(chunk) for chunk, _ in renders if id(chunk) in finished)
        assert set(counts.values()) == {1} and len(counts) == len(finished)  # each once
        in_layout = {finished[id(chunk)] for chunk, inside in renders if inside and id(chunk) in finished}
        assert in_layout <= {segments[0]}  # only what came before the reply was laid out


async def test_one_reply_longer_than_the_budget_is_pruned_a_segment_at_a_time(tui: Tui) -> None:
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": source})
    app = tui.app(**{"tui.prune_after": 10})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "the changelog")
        message = app.transcript.query(AssistantMessage).last()
        assert len(list(app.transcript.walk_children())) <= 12
        assert app.transcript.query(PrunedNote) and not message.source.startswith("# Change Log")
        assert message.text == source and source.endswith(message.source)  # the newest part stays


async def test_text_of_a_reply_can_be_selected_and_copied(tui: Tui) -> None:
    tui.llm.add({"text": "# Title\n\nFirst line of the answer.\n\n- an item with `code`\n"})
    app = tui.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "answer")
        segment = app.transcript.query(AssistantMessage).last().query(MarkdownLines).first()
        assert segment.plain_lines[:3] == ["Title", "", "First line of the answer."]
        await pilot.mouse_down(segment, offset=(0, 2))
        await pilot.hover(segment, offset=(10, 4))
        await pilot.mouse_up(segment, offset=(10, 4))
        assert (
            app.screen.get_selected_text() == "First line of the answer.\n\n• an item w"
        )  # (to the cell under the pointer)


async def test_the_start_screen_shows_version_model_project_mode_and_tips(tui: Tui) -> None:
    tui.llm.add({"text": "Hi."})
    app = tui.app(mode="auto-edit")
    async with app.run_test(size=(100, 30)) as pilot:
        header = app.transcript.query_one(StartHeader)  # in the first paint: before the agent
        text = str(header.render())
        for expected in (f"auger {__version__}", "local:scripted-model", "~/project", "auto-edit", "/help"):
            assert expected in text
        await ready(pilot)
        await turn(pilot, "hello")
        assert app.transcript.children[0] is header  # it scrolls away with the conversation
        await turn(pilot, "/clear")
        assert [type(c) for c in app.transcript.children][:1] == [StartHeader]
        assert not app.transcript.query(AssistantMessage)


async def test_an_interrupted_reply_drops_its_render_backlog_at_once(tui: Tui) -> None:
    """Esc: what arrived but was not shown yet is not rendered (the thread keeps it); the turn
    view closes at once however much was buffered."""
    source = (CORPUS / "axios-README.md").read_text(encoding="utf-8")
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = AssistantMessage(classes="assistant")
        await app.transcript.add(message)
        message.write(source[:3000])
        await wait_for(pilot, lambda: message.source)  # the first flush is on screen
        for _ in range(3):
            message.write(source)  # a backlog: three READMEs the next flush has not shown
        t0 = time.perf_counter()
        await message.finish(drop_backlog=True)
        took = time.perf_counter() - t0
        assert took < 0.3, f"closing took {took:.2f} s"
        assert message.text == source[:3000] + source * 3  # all of it kept
        assert message.dropped == 3 * len(source) and len(message.source) < 4000


async def test_a_segment_paints_each_line_once_until_it_changes_or_leaves_the_view(tui: Tui) -> None:
    """A reply that grows scrolls, and every frame paints all its lines in view again: each
    line's strip is kept, and dropped with the rest when the block is out of view."""
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": "# First\n\nA short answer.\n"}, {"text": source})
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "first")
        first = app.transcript.query(AssistantMessage).last().segments[0]
        assert first.render_line(0) is first.render_line(0)  # painted once
        strip = first.render_line(0)
        first.notify_style_update()  # (a theme change)
        assert first.render_line(0) is not strip
        await turn(pilot, "the changelog")  # the first reply scrolls out of view
        app.transcript.release_offscreen()
        assert first.drop_strips() == 0  # its strips went with its other render caches
