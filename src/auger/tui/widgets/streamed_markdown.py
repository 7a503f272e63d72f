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
from textual.content import Content

from auger.tui.markdown.blocks import BlockSplitter, Chunk
from auger.tui.typing_pace import WINDOW, TypingPace, pace_of
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.transcript import Transcript


class StreamedMarkdown(Vertical):
    FLUSH_INTERVAL = 0.08
    MAX_INTERVAL = 0.5
    TYPING_INTERVAL = 0.3  # while the user types: at most this often
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
        self._flushed_at = 0.0
        self._interval = self.FLUSH_INTERVAL
        self._scheduled = False
        self._wakeup = 0  # the current flush's wake-ups carry it; older ones are ignored
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
            wait = self._flushed_at + self.TYPING_INTERVAL - time.monotonic()
            if wait > 0:  # fewer flushes while keys come: each is a frame a key may meet
                self.set_timer(wait, partial(self._due, wakeup))
                return
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
        self._flushed_at = now
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
        """Show the pending chunks and the open block. Their lines are made first (while the
        user types in slices, the loop let go in between) and put into the widgets at once, when
        no key is on its way to the screen: a key's echo neither waits for a reply's layout and
        repaint nor paints a half-drawn one."""
        pace = self._pace
        async with self._drawing:
            pending = self._pending  # finish(drop_backlog) replaces it: this draw is void then
            made: list[list[Content] | None] = []
            width = self._live.width
            while True:
                await self._make(pending, made, width)
                if pace.busy:  # (a key that came in with the last chunk): before the open block
                    await pace.wait_keys()
                tail = self._tail()
                tail_made = [self._live.prerender(tail[0], width) if width else None] if tail else None
                if pace.busy:  # a key typed meanwhile: its echo is painted first
                    await pace.wait_keys()
                if pending is not self._pending:
                    return
                if self._live.width != width:  # resized meanwhile
                    made, width = [], self._live.width
                elif len(made) == len(pending) and self._tail() == tail:
                    break
            self._pending = []
            if pending:  # the open block is among them now
                self._live.replace([], gap_before=False)
            new = self._place(pending, made)
            if new:
                await self.mount_all(new, before=self._live)
                self.post_message(Transcript.Grew())
                await pace.wait_keys()  # (a key typed while they mounted)
            same = self._tail() == tail and self._live.width == width
            self._live.replace(
                self._tail(), gap_before=bool(self._segments), rendered=tail_made if same else None
            )

    async def _make(self, chunks: list[Chunk], made: list[list[Content] | None], width: int) -> None:
        """Render `chunks` past those in `made` into it (None: no width yet, the segment renders
        it when laid out). While the user types, `SLICE` s at a time."""
        pace = self._pace
        started = time.monotonic()
        while len(made) < len(chunks):
            if pace.busy:  # a key came in: not one more slice until it is on screen
                await pace.wait_keys()
                started = time.monotonic()
                continue
            if pace.typing and time.monotonic() - started > self.SLICE:
                await asyncio.sleep(0)  # a key that came in meanwhile is handled first
                started = time.monotonic()
                continue
            made.append(MarkdownLines.prerender(chunks[len(made)], width) if width else None)

    def _tail(self) -> list[Chunk]:
        splitter = self._splitter
        return [Chunk(splitter.open, splitter.joined)] if splitter.open.strip() else []

    def _place(
        self, chunks: list[Chunk], made: list[list[Content] | None] | None = None
    ) -> list[MarkdownLines]:
        """Give `chunks` (their lines: `made`) to the last segment, or to new ones past
        SEGMENT_CHARS; returns the new segments (not mounted yet). A new segment has the reply's
        width when that is known (the open block's)."""
        lines = made if made is not None else [None] * len(chunks)
        new: list[MarkdownLines] = []
        pending: list[Chunk] = []
        rendered: list[list[Content] | None] = []
        last = self._segments[-1] if self._segments else None
        room = self.SEGMENT_CHARS - len(last.source) if last is not None else 0
        for chunk, chunk_lines in zip(chunks, lines, strict=True):
            if room <= 0 or last is None:
                if pending and last is not None:
                    last.add(pending, rendered)
                pending, rendered = [], []
                last = MarkdownLines(gap_before=bool(self._segments), width=self._live.width)
                self._segments.append(last)
                new.append(last)
                room = self.SEGMENT_CHARS
            pending.append(chunk)
            rendered.append(chunk_lines)
            room -= len(chunk.source)
        if pending and last is not None:
            last.add(pending, rendered)
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
