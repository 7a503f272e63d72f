"""/diff: the agent's file changes as a unified diff, full screen and scrollable, coloured by
line kind (file headers, hunks, added, removed, context; colours in screens.tcss). The diff is
painted through the line API, so a long one costs only the lines on screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

KINDS = ("file", "hunk", "add", "del", "ctx")


def line_kind(line: str) -> str:
    """Which part of a unified diff (git's format) `line` is."""
    if line.startswith(("diff --git ", "--- ", "+++ ", "new file mode", "deleted file mode", "index ")):
        return "file"
    if line.startswith(("old mode", "new mode", "similarity", "rename ", "Binary files")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "ctx"


class UnifiedDiff(Widget):
    """A unified diff, one row per line (long lines are cut at the right edge)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"udiff--{kind}" for kind in KINDS}
    DEFAULT_CSS = "UnifiedDiff { height: auto; }"

    def __init__(self, text: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lines = [(line_kind(line), line.expandtabs(4)) for line in text.splitlines()]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.visual_style
        if y >= len(self.lines):
            return Strip.blank(width, base.rich_style)
        kind, text = self.lines[y]
        style = base + self.get_visual_style(f"udiff--{kind}")
        segments = list(Content(text).render_segments(style))
        return Strip(segments).crop(0, width).extend_cell_length(width, style.rich_style)


class DiffScreen(ModalScreen[None]):
    CSS_PATH = "screens.tcss"
    BINDINGS: ClassVar = [Binding("escape,q", "dismiss", "Close", id="diff.close")]
    AUTO_FOCUS = "#diff-scroll"

    def __init__(self, title: str, text: str) -> None:
        super().__init__(classes="picker")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-box"):
            yield Static(self.title_text, classes="picker-title", markup=False)
            with VerticalScroll(id="diff-scroll"):
                yield UnifiedDiff(self.text, id="diff")
            yield Static("↑↓ PgUp PgDn Home End scroll · Esc close", classes="picker-hint", markup=False)
