"""Transcript blocks for text: the user's prompt, the assistant's streamed reply, reasoning,
notices and command output."""

from __future__ import annotations

import asyncio
import time

from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from auger.tui.format import elapsed
from auger.tui.mdsplit import Splitter


class UserMessage(Static):
    """The user's prompt; `-queued` while it waits for the agent."""

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(text, markup=False, classes="-queued" if queued else "")
        self.text = text


class StreamedMarkdown(Vertical):
    """Markdown streamed through `MarkdownStream`, as a run of bounded segments
    (`auger.tui.mdsplit`) so a long reply stays cheap.

    `write()` only buffers; the buffer goes to the stream at most every `FLUSH_INTERVAL` seconds.
    Each flush costs a repaint, so a fast stream is rendered in a dozen batches a second instead
    of one repaint per token, and the event loop stays free for keys and for the stream itself.
    While the user types (a key in the last `TYPING_GRACE` s), flushes wait for a pause in the
    typing, up to `MAX_DEFER` s: a keystroke never queues behind a transcript repaint.
    """

    FLUSH_INTERVAL = 0.08
    TYPING_GRACE = 0.12
    MAX_DEFER = 0.4

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=f"streamed {classes}".strip())
        self.parts: list[str] = []
        self._splitter = Splitter()
        self._segment: Markdown | None = None
        self._fed = ""  # what the current segment has been given
        self._stream: MarkdownStream | None = None
        self._initial = text
        self._buffer: list[str] = []
        self._flush_at = 0.0  # when the next flush may run
        self._scheduled = False

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def source(self) -> str:
        return self.text

    def compose(self):  # type: ignore[no-untyped-def]
        segments = [""]
        for kind, value in self._splitter.feed(self._initial):
            if kind == "split":
                segments.append("")
            else:
                segments[-1] += value
        if self._initial:
            self.parts.append(self._initial)
        for text in segments:
            self._segment = Markdown(text or None)
            yield self._segment

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
        now = time.monotonic()
        quiet_at = float(getattr(self.app, "last_key_at", 0.0)) + self.TYPING_GRACE
        if now < quiet_at and now < self._flush_at - self.FLUSH_INTERVAL + self.MAX_DEFER:
            self.set_timer(quiet_at - now, self._flush)  # the user is typing: after the keys
            return
        self._scheduled = False
        self._flush_at = now + self.FLUSH_INTERVAL
        text, self._buffer = "".join(self._buffer), []
        for kind, value in self._splitter.feed(text):
            if kind == "split":
                await self._new_segment()
            else:
                await self._write(value)

    async def _write(self, text: str) -> None:
        if self._segment is None:
            await self._new_segment()
        assert self._segment is not None
        if self._stream is None:
            self._stream = Markdown.get_stream(self._segment)
        self._fed += text
        await self._stream.write(text)

    async def _new_segment(self) -> None:
        await self._stop()
        self._segment, self._fed = Markdown(), ""
        await self.mount(self._segment)

    async def _stop(self) -> None:
        """Stop the stream and wait until the segment shows everything it was given (a stopped
        MarkdownStream can leave its last append still running)."""
        if self._stream is None or self._segment is None:
            return
        stream, self._stream = self._stream, None
        segment = self._segment
        await stream.stop()
        if segment.source != self._fed:
            await segment.update(self._fed)
        await asyncio.sleep(0)  # let an in-flight append take the widget's lock...
        async with segment.lock:  # ...and wait for it to finish
            pass

    async def finish(self) -> None:
        """Show what is buffered and close the stream."""
        if self._buffer:
            await self._flush()
        await self._stop()
        import os

        if os.environ.get("EXP_PARTS") and len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]


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

    async def finish(self, seconds: float) -> None:
        await self.body.finish()
        self.title = f"Thought for {elapsed(seconds)}"
        self.collapsed = True


class Notice(Static):
    """A one-line note from auger: `-info`, `-warning` or `-error`."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, markup=False, classes=f"-{level}")


class InfoBlock(Markdown):
    """Output of a slash command (help, skills, tokens, ...)."""

    def __init__(self, markdown: str) -> None:
        super().__init__(markdown, classes="info")


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
