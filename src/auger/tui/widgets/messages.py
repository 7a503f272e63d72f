"""Transcript blocks for text: the user's prompt, the assistant's streamed reply, reasoning,
notices and command output."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from auger.tui.format import elapsed
from auger.tui.markdown.blocks import BlockSplitter
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.streamed_markdown import StreamedMarkdown


class UserMessage(Static):
    """The user's prompt; `-queued` while it waits for the agent."""

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(text, markup=False, classes="-queued" if queued else "")
        self.text = text


class AssistantMessage(StreamedMarkdown):
    """One assistant reply block (a turn may have several, split by tool calls)."""


class Reasoning(Collapsible):
    """The model's reasoning, dimmed; expanded while it streams, collapsed once the answer starts."""

    def __init__(self) -> None:
        self.body = StreamedMarkdown(classes="reasoning-text")
        super().__init__(self.body, title="Thinking…", collapsed=False, classes="reasoning")

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
