"""Keys first: while a typed key is on its way to the screen, the agent's work in the same event
loop (the model call's parsing, the stream's hand-over: `LoopShare.turn`) waits for its echo,
for at most `HOLD` s a key, and a cancel still lands at once. The real app, Session and scripted
server; keys go in as the terminal driver sends them (noted as read, then posted)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from conftest_tui import Tui, ready, reply_streaming, send_nowait, tui, type_while_busy, wait_for  # noqa: F401
from textual import events

from auger.core.models.replies import loop_share
from auger.core.models.replies.loop_share import HOLD, LoopShare
from auger.tui.typing_pace import TypingPace, pace_of
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.prompt import PromptInput
from auger.tui.widgets.start_header import StartHeader

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"


def record_turns(monkeypatch: pytest.MonkeyPatch, pace: TypingPace) -> list[tuple[bool, float, bool]]:
    """Each `LoopShare.turn()` the agent takes: (a key was on its way when it began, how long it
    took, a key is still on its way as the agent's work goes on after it)."""
    turns: list[tuple[bool, float, bool]] = []
    turn = LoopShare.turn

    async def timed(self: LoopShare) -> None:
        before, started = pace.waiting(), time.monotonic()
        await turn(self)
        turns.append((before, time.monotonic() - started, pace.waiting()))

    monkeypatch.setattr(LoopShare, "turn", timed)
    return turns


def record_renders(monkeypatch: pytest.MonkeyPatch, pace: TypingPace) -> list[bool]:
    """Each chunk of the reply the TUI renders: was a key on its way to the screen meanwhile."""
    renders: list[bool] = []
    prerender = MarkdownLines.prerender

    def rendered(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        renders.append(pace.busy)
        return prerender(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownLines, "prerender", staticmethod(rendered))
    return renders


async def test_neither_the_agent_nor_the_reply_works_while_a_typed_key_is_not_on_screen(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": source})
    app = tui.app()
    pace = pace_of(app)
    turns = record_turns(monkeypatch, pace)
    renders = record_renders(monkeypatch, pace)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = await reply_streaming(pilot, app, "the changelog")
        typed = await type_while_busy(app, 100, read=True)
        await wait_for(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause()
        assert app.prompt.text == "x" * typed
        assert message.text == source  # the reply is complete, as sent
    met = [t for t in turns if t[0]]
    assert len(met) >= 10, "the agent's work never met a typed key: nothing was measured"
    # the agent went on while a key was still on its way only after holding for it HOLD s
    went_on = [took for _, took, still in turns if still and took < HOLD * 0.9]
    assert went_on == [], f"{len(went_on)} of {len(turns)} turns went on before a key's echo"
    # nor did the TUI render a chunk of the reply while a key was on its way
    assert len(renders) >= 10
    assert sum(renders) == 0, f"{sum(renders)} of {len(renders)} chunks rendered before a key's echo"


async def test_a_key_that_is_never_shown_holds_the_agent_once_and_briefly() -> None:
    pace = TypingPace()
    loop_share.give_way(pace)
    try:
        pace.key(shows=True)  # handled, changed the prompt, but the prompt is never painted
        share = LoopShare()
        started = time.monotonic()
        await share.turn()
        held = time.monotonic() - started
        assert HOLD * 0.9 <= held < HOLD + 0.5
        started = time.monotonic()
        for _ in range(50):
            await share.turn()
        assert time.monotonic() - started < HOLD  # not held again for the same key
        pace.key(shows=True)  # a new key is waited for again
        assert pace.waiting()
    finally:
        loop_share.give_way(None)


async def test_a_cancel_lands_in_the_hold_at_once() -> None:
    pace = TypingPace()
    loop_share.give_way(pace)
    try:
        pace.key(shows=True)
        task = asyncio.create_task(LoopShare().turn())
        await asyncio.sleep(0.005)
        assert not task.done()  # holding for the key
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - started < 0.02
    finally:
        loop_share.give_way(None)


async def test_no_front_end_no_hold() -> None:
    """Headless, serve and ACP register nothing: a turn never waits."""
    share = LoopShare(every=0.0)
    started = time.monotonic()
    for _ in range(100):
        await share.turn()
    assert time.monotonic() - started < HOLD


async def painted_while_handling(tui: Tui, monkeypatch: pytest.MonkeyPatch, *, layout_due: bool) -> list[str]:
    """Type "abc": what the prompt showed each time it was painted while it handled a key
    (`layout_due`: the screen has a layout due as each key comes, as when a reply just grew)."""
    painted: list[str] = []
    handling = False
    on_key, render_line = PromptInput._on_key, PromptInput.render_line

    async def keyed(self: PromptInput, event: events.Key) -> None:
        nonlocal handling
        if layout_due:
            self.screen.refresh(layout=True)
        handling = True
        try:
            await on_key(self, event)
        finally:
            handling = False

    def rendered(self: PromptInput, y: int):  # type: ignore[no-untyped-def]
        if handling and y == 0:
            painted.append(self.text)
        return render_line(self, y)

    monkeypatch.setattr(PromptInput, "_on_key", keyed)
    monkeypatch.setattr(PromptInput, "render_line", rendered)
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for char in "abc":
            app.post_message(events.Key(char, char))
            await pilot.pause()
        assert app.prompt.text == "abc"
    return painted


async def test_a_typed_key_is_painted_while_the_prompt_handles_it(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not at the screen's next update tick: the frame with the key is made before the key's
    handler returns (a key that makes the prompt taller waits for the layout, as before)."""
    assert await painted_while_handling(tui, monkeypatch, layout_due=False) == ["a", "ab", "abc"]


async def test_a_key_is_painted_at_once_even_when_the_screen_has_a_layout_due(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply that just grew leaves the screen a layout (and a repaint of the transcript) due at
    its next tick: the key's echo does not wait for them."""
    assert await painted_while_handling(tui, monkeypatch, layout_due=True) == ["a", "ab", "abc"]


async def test_a_repaint_queued_before_a_key_is_not_lost_by_its_echo(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key's own frame paints only the prompt; a widget that asked to be repainted before it
    (here the start header, at the top; a reply's open block) is painted at the screen's next tick."""
    app = tui.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.pause()
        header = app.query_one(StartHeader)
        painted: list[int] = []
        render_line = StartHeader.render_line

        def rendered(self: StartHeader, y: int):  # type: ignore[no-untyped-def]
            painted.append(y)
            return render_line(self, y)

        monkeypatch.setattr(StartHeader, "render_line", rendered)
        on_key, echo_now = PromptInput._on_key, PromptInput._echo_now
        queued: list[bool] = []  # the header's repaint was queued as the key's echo was painted

        async def keyed(self: PromptInput, event: events.Key) -> None:
            for _ in range(1000):  # until its Update reached the screen (a tick may paint it first)
                header.refresh()
                for _ in range(20):
                    await asyncio.sleep(0)
                    if header in self.screen._dirty_widgets:
                        return await on_key(self, event)
            raise AssertionError("the start header's repaint never reached the screen")

        def echoed(self: PromptInput) -> None:
            queued.append(header in self.screen._dirty_widgets)
            echo_now(self)
            painted.clear()  # (only the paints after the echo count)

        monkeypatch.setattr(PromptInput, "_on_key", keyed)
        monkeypatch.setattr(PromptInput, "_echo_now", echoed)
        app.post_message(events.Key("a", "a"))
        await wait_for(pilot, lambda: queued)
        assert queued == [True]  # (else nothing was measured)
        await pilot.pause(0.1)  # the screen's next tick
        assert painted, "the start header's repaint was lost"
