"""StreamedMarkdown: a reply streamed as markdown, drawn so that keys typed meanwhile echo first.

Finished blocks go into `MarkdownLines` segments (each chunk rendered once, at the width the
segment has), the open block into one more `MarkdownLines` re-rendered on each flush.
`auger.tui.markdown.blocks.BlockSplitter` says which blocks are finished. A segment takes chunks
until it holds `SEGMENT_CHARS` of source, then a new one starts: the transcript can prune a long
reply a segment at a time, and a segment out of view costs no painting.

Pacing: `write()` only buffers; the buffer is rendered at most every `FLUSH_INTERVAL` seconds, so
a fast stream costs a dozen repaints a second instead of one per token. When a flush and the
repaint after it take longer (a busy machine, a big screen), the interval grows to twice that
time (at most `MAX_INTERVAL`): rendering never takes more than a third of the event loop, which
also runs the stream itself.

Keys first (`auger.tui.typing_pace`): while the user types, a due flush waits for the next key's
echo to be on screen and runs right after it (or `typing_pace.WINDOW` s later if no key comes),
and it renders its chunks in slices of `SLICE` s with the loop let go in between, so a key that
comes in meanwhile is handled before the rest. Chunks are rendered by the flush at the width of
the reply, never inside Textual's layout pass (which would hold a key for all of them at once).
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

from textual.containers import Vertical

from auger.tui.markdown.blocks import BlockSplitter, Chunk
from auger.tui.typing_pace import WINDOW, TypingPace, pace_of
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.transcript import Transcript


class StreamedMarkdown(Vertical):
    FLUSH_INTERVAL = 0.08
    MAX_INTERVAL = 0.5
    SLICE = 0.004  # while the user types: render this long, then let the loop go
    SEGMENT_CHARS = 4_000

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=f"streamed {classes}".strip())
        self.parts: list[str] = [text] if text else []
        self._splitter = BlockSplitter()
        self._initial = text
        self._segments: list[MarkdownLines] = []
        self._live = MarkdownLines(classes="live")
        self._buffer: list[str] = []  # written, not given to the splitter yet
        self._pending: list[Chunk] = []  # finished, not shown yet
        self._drawing = asyncio.Lock()  # one drain at a time (a flush may pause between slices)
        self._flush_at = 0.0  # when the next flush may run
        self._interval = self.FLUSH_INTERVAL
        self._scheduled = False
        self._wakeup = 0  # the current flush's wake-ups carry it; older ones are ignored
        self.dropped = 0  # characters received but not shown (an interrupted turn's backlog)
        self.slices = 0  # how often a flush let the loop go for a key (tests, benchmarks)

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

    @property
    def _pace(self) -> TypingPace:
        return pace_of(self.app)

    def compose(self):  # type: ignore[no-untyped-def]
        if self._initial:
            self._place(self._splitter.feed(self._initial) + self._splitter.close())
        yield from self._segments
        yield self._live

    # -- pacing ----------------------------------------------------------------------------
    def write(self, fragment: str) -> None:
        """Queue `fragment` for display (never blocks, never repaints by itself)."""
        if not fragment:
            return
        self.parts.append(fragment)
        self._buffer.append(fragment)
        if not self._scheduled:
            self._scheduled = True
            self._wakeup += 1
            delay = max(0.0, self._flush_at - time.monotonic())
            due = partial(self._due, self._wakeup)
            self.set_timer(delay, due) if delay else self.call_later(due)

    def _due(self, wakeup: int) -> None:
        """The interval is over: flush now, or, while the user types, right after the next key's
        echo (at the latest `WINDOW` s on)."""
        if wakeup != self._wakeup:
            return
        if self._pace.typing:
            self._pace.after_echo(partial(self.call_later, self._flush, wakeup))
            self.set_timer(WINDOW, partial(self._flush, wakeup))
            return
        self.call_later(self._flush, wakeup)

    async def _flush(self, wakeup: int) -> None:
        if wakeup != self._wakeup or not self._scheduled:
            return
        self._wakeup += 1
        self._scheduled = False
        now = time.monotonic()
        self._flush_at = now + self._interval
        text, self._buffer = "".join(self._buffer), []
        self._pending += self._splitter.feed(text)
        await self._draw()
        self.call_after_refresh(self._painted, now)

    def _painted(self, started: float) -> None:
        """The flush that began at `started` is on screen: pace the next ones by what it cost."""
        cost = time.monotonic() - started
        self._interval = min(self.MAX_INTERVAL, max(self.FLUSH_INTERVAL, 2 * cost))

    # -- drawing ---------------------------------------------------------------------------
    async def _draw(self) -> None:
        """Show the pending chunks, then the open block. While the user types, in slices."""
        pace = self._pace
        async with self._drawing:
            started = time.monotonic()
            while self._pending:
                if pace.busy:  # a key typed meanwhile: its echo is painted first
                    await pace.wait_keys()
                    started = time.monotonic()
                    continue
                if time.monotonic() - started > self.SLICE and pace.typing:
                    self.slices += 1
                    await asyncio.sleep(0)  # a key that came in meanwhile is handled first
                    started = time.monotonic()
                    continue
                if self._live.chunks:  # its block is among the pending ones now
                    self._live.replace([], gap_before=False)
                new = self._place([self._pending.pop(0)])
                if new:
                    await self.mount_all(new, before=self._live)
                    self.post_message(Transcript.Grew())
            await pace.wait_keys()
            splitter = self._splitter
            tail = [Chunk(splitter.open, splitter.joined)] if splitter.open.strip() else []
            self._live.replace(tail, gap_before=bool(self._segments))

    def _place(self, chunks: list[Chunk]) -> list[MarkdownLines]:
        """Give `chunks` to the last segment, or to new ones past SEGMENT_CHARS; returns the new
        segments (not mounted yet). A new segment renders at the reply's width when that is
        known (the open block's)."""
        new: list[MarkdownLines] = []
        pending: list[Chunk] = []
        last = self._segments[-1] if self._segments else None
        room = self.SEGMENT_CHARS - last.size_chars if last is not None else 0
        for chunk in chunks:
            if room <= 0 or last is None:
                if pending and last is not None:
                    last.add(pending)
                pending = []
                last = MarkdownLines(gap_before=bool(self._segments), width=self._live.width)
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
        self._wakeup += 1
        if drop_backlog:
            self.dropped = sum(len(part) for part in self._buffer)
            self._buffer = []
            if self._pending:  # a flush was cut short: what it had not shown yet, and after it
                self.dropped += sum(len(c.source) for c in self._pending) + len(self._splitter.open)
                self._pending, self._splitter = [], BlockSplitter()
        text, self._buffer = "".join(self._buffer), []
        self._pending += (self._splitter.feed(text) if text else []) + self._splitter.close()
        await self._draw()

    def drop_oldest(self, count: int) -> int:
        """Remove up to `count` of the oldest segments (the transcript's pruning); how many went."""
        old = self.segments[: max(0, min(count, len(self.segments) - 1))]
        for segment in old:
            self._segments.remove(segment)
        if old:
            self.remove_children(old)
        return len(old)
