"""Keys typed while a long reply streams: each key is on screen before the reply draws again, the
reply keeps appearing while the user types, and it ends complete. The real app, Session and
scripted server; keys go in as the terminal driver sends them; what is drawn is recorded by
wrapping (and calling) the widgets' own draw and render methods."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest_tui import Tui, ready, reply_streaming, send_nowait, tui, type_while_busy, wait_for  # noqa: F401
from textual import events

from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.messages import AssistantMessage
from auger.tui.widgets.prompt import PromptInput

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"


def record(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, float]]:
    """A timeline of ("key", keys in the prompt) when the prompt has handled a key, ("echo", keys
    shown) when the prompt renders a line, ("draw", 0) when a reply's segment takes new text."""
    timeline: list[tuple[str, int, float]] = []
    on_key, render_line = PromptInput._on_key, PromptInput.render_line
    add, replace = MarkdownLines.add, MarkdownLines.replace

    async def keyed(self: PromptInput, event: events.Key) -> None:
        mark = len(timeline)
        await on_key(self, event)
        keys, now = self.text.count("x"), time.monotonic()
        timeline.append(("key", keys, now))
        if any(kind == "echo" and shown >= keys for kind, shown, _ in timeline[mark:]):
            timeline.append(("echo", keys, now))  # the prompt painted it while handling it

    def rendered(self: PromptInput, y: int):  # type: ignore[no-untyped-def]
        timeline.append(("echo", self.text.count("x"), time.monotonic()))
        return render_line(self, y)

    def drawn(self: MarkdownLines, *args: object, **kwargs: object) -> None:
        if isinstance(self.parent, AssistantMessage):
            timeline.append(("draw", 0, time.monotonic()))

    def added(self: MarkdownLines, *args: object, **kwargs: object) -> None:
        drawn(self)
        add(self, *args, **kwargs)  # type: ignore[arg-type]

    def replaced(self: MarkdownLines, *args: object, **kwargs: object) -> None:
        drawn(self)
        replace(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PromptInput, "_on_key", keyed)
    monkeypatch.setattr(PromptInput, "render_line", rendered)
    monkeypatch.setattr(MarkdownLines, "add", added)
    monkeypatch.setattr(MarkdownLines, "replace", replaced)
    return timeline


def draws_before_echo(timeline: list[tuple[str, int, float]]) -> int:
    """How often the reply drew while a typed key was not on screen yet."""
    waiting: int | None = None  # the first key not echoed yet (keys in the prompt with it)
    count = 0
    for kind, keys, _ in timeline:
        if kind == "key" and waiting is None:
            waiting = keys
        elif kind == "echo" and waiting is not None and keys >= waiting:
            waiting = None
        elif kind == "draw" and waiting is not None:
            count += 1
    return count


async def test_each_key_typed_during_a_long_reply_shows_before_the_reply_draws_again(
    tui: Tui, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (CORPUS / "black-CHANGES-70k.md").read_text(encoding="utf-8")
    tui.llm.add({"text": source})
    app = tui.app()
    timeline = record(monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = await reply_streaming(pilot, app, "the changelog")
        started = time.monotonic()
        typed = await type_while_busy(app, 150)
        stopped = time.monotonic()
        await wait_for(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause()
        assert app.prompt.text == "x" * typed  # every key arrived
        assert typed >= 20, "the reply ended before the keys could be typed: nothing was measured"
        assert draws_before_echo(timeline) == 0
        draws = [t for kind, _, t in timeline if kind == "draw" and started <= t <= stopped]
        assert len(draws) >= 2 * (stopped - started)  # the reply kept appearing while keys came
        assert message.text == source and message.source == source  # complete, as sent
