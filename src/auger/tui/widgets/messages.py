"""Transcript blocks for text: the user's prompt, the assistant's streamed reply, reasoning,
notices and command output."""

from __future__ import annotations

import time

from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from auger.tui.format import elapsed
from auger.tui.markdown.blocks import BlockSplitter, Chunk
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.prompt import PromptInput
from auger.tui.widgets.transcript import Transcript


class UserMessage(Static):
    """The user's prompt; `-queued` while it waits for the agent."""

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(text, markup=False, classes="-queued" if queued else "")
        self.text = text


class StreamedMarkdown(Vertical):
    """A reply streamed as markdown: finished blocks in `MarkdownLines` segments (each rendered
    once), the open block in one more `MarkdownLines` re-rendered on each flush.

    `auger.tui.markdown.blocks.BlockSplitter` says which blocks are finished. A segment takes
    chunks until it holds `SEGMENT_CHARS` of source, then a new one starts: the transcript can
    prune a long reply a segment at a time, and a segment out of view costs no painting.

    `write()` only buffers; the buffer is rendered at most every `FLUSH_INTERVAL` seconds, so a
    fast stream costs a dozen repaints a second instead of one per token. When a flush and the
    repaint after it take longer (a busy machine, a big screen), the interval grows to twice that
    time (at most `MAX_INTERVAL`): rendering never takes more than a third of the event loop, which
    also runs the stream itself. While the user types (a key in the last `TYPING_GRACE` s),
    flushes wait for a pause in the typing, up to `MAX_DEFER` s: a keystroke never queues behind a
    transcript repaint.
    """

    FLUSH_INTERVAL = 0.08
    MAX_INTERVAL = 0.5
    TYPING_GRACE = 0.12
    MAX_DEFER = 0.4
    SEGMENT_CHARS = 4_000

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=f"streamed {classes}".strip())
        self.parts: list[str] = [text] if text else []
        self._splitter = BlockSplitter()
        self._initial = text
        self._segments: list[MarkdownLines] = []
        self._live = MarkdownLines(classes="live")
        self._buffer: list[str] = []
        self._flush_at = 0.0  # when the next flush may run
        self._interval = self.FLUSH_INTERVAL
        self._scheduled = False
        self.dropped = 0  # characters received but not shown (an interrupted turn's backlog)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def source(self) -> str:
        """What the widgets show (all of `text` once the stream is finished)."""
        return "".join(segment.source for segment in self.segments) + self._splitter.open

    @property
    def segments(self) -> list[MarkdownLines]:
        return [s for s in self._segments if s.parent is self]

    def compose(self):  # type: ignore[no-untyped-def]
        if self._initial:
            self._place(self._splitter.feed(self._initial) + self._splitter.close())
        yield from self._segments
        yield self._live

    def write(self, fragment: str) -> None:
        """Queue `fragment` for display (never blocks, never repaints by itself)."""
        if not fragment:
            return
        self.parts.append(fragment)
        self._buffer.append(fragment)
        if not self._scheduled:
            self._scheduled = True
            delay = max(0.0, self._flush_at - time.monotonic())
            self.set_timer(delay, self._flush) if delay else self.call_later(self._flush)

    async def _flush(self) -> None:
        if not self._scheduled:
            return
        now = time.monotonic()
        quiet_at = PromptInput.last_key_at + self.TYPING_GRACE
        if now < quiet_at and now < self._flush_at - self._interval + self.MAX_DEFER:
            self.set_timer(quiet_at - now, self._flush)  # the user is typing: after the keys
            return
        self._scheduled = False
        self._flush_at = now + self._interval
        text, self._buffer = "".join(self._buffer), []
        await self._show(self._splitter.feed(text))
        self.call_after_refresh(self._painted, now)

    def _painted(self, started: float) -> None:
        """The flush that began at `started` is on screen: pace the next ones by what it cost."""
        cost = time.monotonic() - started
        self._interval = min(self.MAX_INTERVAL, max(self.FLUSH_INTERVAL, 2 * cost))

    async def _show(self, finished: list[Chunk]) -> None:
        new = self._place(finished)
        if new:
            await self.mount_all(new, before=self._live)
            self.post_message(Transcript.Grew())
        splitter = self._splitter
        tail = [Chunk(splitter.open, splitter.joined)] if splitter.open.strip() else []
        self._live.replace(tail, gap_before=bool(self._segments))

    def _place(self, chunks: list[Chunk]) -> list[MarkdownLines]:
        """Give `chunks` to the last segment, or to new ones past SEGMENT_CHARS; returns the new
        segments (not mounted yet)."""
        new: list[MarkdownLines] = []
        pending: list[Chunk] = []
        last = self._segments[-1] if self._segments else None
        room = self.SEGMENT_CHARS - last.size_chars if last is not None else 0
        for chunk in chunks:
            if room <= 0 or last is None:
                if pending and last is not None:
                    last.add(pending)
                pending = []
                last = MarkdownLines(gap_before=bool(self._segments))
                self._segments.append(last)
                new.append(last)
                room = self.SEGMENT_CHARS
            pending.append(chunk)
            room -= len(chunk.source)
        if pending and last is not None:
            last.add(pending)
        return new

    async def finish(self, *, drop_backlog: bool = False) -> None:
        """Close the stream: show what is buffered (or, `drop_backlog`, leave it out: an
        interrupted turn ends at once; `text` keeps it all) and freeze the open block."""
        self._scheduled = False
        if drop_backlog:
            self.dropped = sum(len(part) for part in self._buffer)
            self._buffer = []
        text, self._buffer = "".join(self._buffer), []
        finished = self._splitter.feed(text) if text else []
        await self._show(finished + self._splitter.close())

    def drop_oldest(self, count: int) -> int:
        """Remove up to `count` of the oldest segments (the transcript's pruning); how many went."""
        old = self.segments[: max(0, min(count, len(self.segments) - 1))]
        for segment in old:
            self._segments.remove(segment)
        if old:
            self.remove_children(old)
        return len(old)


class AssistantMessage(StreamedMarkdown):
    """One assistant reply block (a turn may have several, split by tool calls)."""


class Reasoning(Collapsible):
    """The model's reasoning, dimmed; expanded while it streams, collapsed once the answer starts."""

    def __init__(self) -> None:
        self.body = StreamedMarkdown(classes="reasoning-text")
        super().__init__(self.body, title="Thinking…", collapsed=False, classes="reasoning")
        self._seconds = 0.0

    def write(self, fragment: str) -> None:
        self.body.write(fragment)

    async def finish(self, seconds: float, *, drop_backlog: bool = False) -> None:
        await self.body.finish(drop_backlog=drop_backlog)
        self.title = f"Thought for {elapsed(seconds)}"
        self.collapsed = True


class Notice(Static):
    """A one-line note from auger: `-info`, `-warning` or `-error`."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, markup=False, classes=f"-{level}")


class ChangesLine(Static):
    """One quiet line under a turn that changed files: what it changed, and how to see or undo it."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False)


class InfoBlock(MarkdownLines):
    """Output of a slash command (help, skills, tokens, ...)."""

    def __init__(self, markdown: str) -> None:
        splitter = BlockSplitter()
        super().__init__(splitter.feed(markdown) + splitter.close(), classes="info")


class ShellBlock(Vertical):
    """A `!command` the user ran: the command, its output and exit code."""

    def __init__(self, command: str) -> None:
        super().__init__(classes="shell -running")
        self.command = command

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(f"$ {self.command}", markup=False, classes="shell-command")
        yield Static("running…", markup=False, classes="shell-output")

    def finish(self, output: str, exit_code: int) -> None:
        self.remove_class("-running")
        self.add_class("-ok" if exit_code == 0 else "-failed")
        body = output.rstrip() or "(no output)"
        self.query_one(".shell-output", Static).update(f"{body}\n[exit code {exit_code}]")
