"""MarkdownLines: markdown shown as pre-rendered lines (Textual's line API), one widget for many
blocks.

A Textual `Markdown` widget is a tree of widgets (a paragraph, a list, each list item and its
bullet are widgets: ~0.2 MB and a layout pass each). Here a run of finished blocks is one widget
holding the source of its chunks and their lines as `Content`, rendered for the current width
(`auger.tui.markdown.render`) and again only when the width changes; a new chunk renders only
itself. `render_line` turns a line into a `Strip` when Textual paints it.

Text selection works like Textual's own widgets: every segment carries its (x, y) offset in the
widget's plain text, and `get_selection` cuts that text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, TypeAlias

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from auger.tui.markdown.blocks import Chunk
from auger.tui.markdown.render import render_markdown

Rendered: TypeAlias = list[list[Content] | None] | None  # per chunk: its lines by `prerender`, or None

ROLES = (
    "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "code", "link", "bullet", "quote",
    "quote-bar", "code-block", "html", "hr", "table-header", "table-border",
)  # fmt: skip


class MarkdownLines(Widget):
    """Finished markdown chunks as lines. `gap_before`: a blank line above the first chunk (it
    follows other blocks of the same reply). `width`: the width it will have, when known (a new
    segment of a streamed reply: its chunks render as they come, not all in its first layout)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"md--{role}" for role in ROLES}
    DEFAULT_CSS = "MarkdownLines { height: auto; }"

    def __init__(
        self, chunks: Iterable[Chunk] = (), *, gap_before: bool = False, width: int = 0, classes: str = ""
    ) -> None:
        super().__init__(classes=classes)
        self.chunks: list[Chunk] = list(chunks)
        self.gap_before = gap_before
        self._width = width
        self._lines: list[Content] = self._render_all(width) if width else []
        # each line's strip as last painted (for `_strips_for`): a reply that grows at the bottom
        # scrolls, and every frame paints all its lines in view again
        self._strips: dict[int, Strip] = {}
        self._strips_for: tuple[int, Style] | None = None

    @property
    def source(self) -> str:
        return "".join(chunk.source for chunk in self.chunks)

    @property
    def width(self) -> int:
        """The width its lines are rendered for (0: not laid out yet)."""
        return self._width

    @property
    def lines(self) -> list[Content]:
        """The rendered lines at the current width (for tests and copying)."""
        return self._lines

    @property
    def plain_lines(self) -> list[str]:
        return [line.plain.rstrip() for line in self._lines]

    # -- content ---------------------------------------------------------------------------
    @staticmethod
    def prerender(chunk: Chunk, width: int) -> list[Content]:
        """`chunk`'s lines at `width`, made before they are shown (`add`, `replace`)."""
        return render_markdown(chunk.source, width)

    def add(self, chunks: list[Chunk], rendered: Rendered = None) -> None:
        """Append finished chunks (only they are rendered; `rendered`: their lines by
        `prerender` at `width`, or None)."""
        if not chunks:
            return
        start = len(self.chunks)
        self.chunks += chunks
        if self._width:
            for offset, index in enumerate(range(start, len(self.chunks))):
                made = rendered[offset] if rendered is not None else None
                self._lines += self._render_chunk(index, self._width, made)
        self.refresh(layout=True)

    def replace(self, chunks: list[Chunk], *, gap_before: bool, rendered: Rendered = None) -> None:
        """Show `chunks` instead of what was there (the open block while it streams)."""
        before = len(self._lines)
        self.chunks, self.gap_before = chunks, gap_before
        if self._width:
            self._lines = self._render_all(self._width, rendered)
        self._strips.clear()
        self.refresh(layout=len(self._lines) != before or not self._width)

    def _render_chunk(self, index: int, width: int, made: list[Content] | None = None) -> list[Content]:
        chunk = self.chunks[index]
        lines = list(made) if made is not None else self.prerender(chunk, width)
        if lines and not chunk.joined and (index or self.gap_before):
            lines.insert(0, Content(""))
        return lines

    def _render_all(self, width: int, rendered: Rendered = None) -> list[Content]:
        lines: list[Content] = []
        for index in range(len(self.chunks)):
            lines += self._render_chunk(index, width, rendered[index] if rendered is not None else None)
        return lines

    def _ensure(self, width: int) -> None:
        if width != self._width and width > 0:
            self._width = width
            self._lines = self._render_all(width)
            self._strips.clear()

    # -- Textual ---------------------------------------------------------------------------
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return len(self._lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._ensure(width)
        base = self.visual_style
        if y >= len(self._lines):
            return Strip.blank(width, base.rich_style)
        line = self._lines[y]
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            style = Style.from_styles(self.screen.get_component_styles("screen--selection"))
            return self._strip(line.stylize(style, start, len(line.plain) if end == -1 else end), y, base)
        if self._strips_for != (width, base):
            self._strips.clear()
            self._strips_for = (width, base)
        strip = self._strips.get(y)
        if strip is None:
            strip = self._strips[y] = self._strip(line, y, base)
        return strip

    def _strip(self, line: Content, y: int, base: Style) -> Strip:
        width = self.size.width
        segments: list[Segment] = []
        x = 0
        for text, style in line.render(base, end="", parse_style=self._get_style):
            segments.append(Segment(text, style.rich_style_with_offset(x, y)))
            x += len(text)
        return Strip(segments).extend_cell_length(width, base.rich_style)

    def drop_strips(self) -> int:
        """Forget the painted strips (a block out of view: they are made again if it comes back)."""
        count = len(self._strips)
        self._strips.clear()
        return count

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # (a theme's colours are in them)

    def get_selection(self, selection: object) -> tuple[str, str] | None:
        return selection.extract("\n".join(self.plain_lines)), "\n"  # type: ignore[attr-defined]

    def selection_updated(self, selection: object) -> None:
        self.refresh()

    async def action_link(self, href: str) -> None:
        self.app.open_url(href)
