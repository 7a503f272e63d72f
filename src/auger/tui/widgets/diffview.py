"""A coloured diff: added / removed / context lines with their line numbers (colours in
blocks.tcss). A long one is folded after `max_lines` with a count; a click unfolds it."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.widget import Widget

from auger.core.port import counted
from auger.tui.diffs import DiffLine, diff_stats

_MARK = {"add": "+", "del": "-", "ctx": " ", "hunk": " "}


class DiffView(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"diff--{k}" for k in ("add", "del", "ctx", "hunk", "number")}

    def __init__(self, lines: list[DiffLine], max_lines: int) -> None:
        super().__init__()
        self.lines = lines
        self.max_lines = max_lines
        self.unfolded = False

    @property
    def folded(self) -> int:
        """How many lines the fold hides."""
        return 0 if self.unfolded else max(0, len(self.lines) - self.max_lines)

    def render(self) -> Content:
        shown = self.lines if self.unfolded else self.lines[: self.max_lines]
        width = max((len(str(line.number)) for line in shown if line.number), default=0)
        number_style = self.get_visual_style("diff--number")
        rows: list[Content] = []
        for line in shown:
            style = self.get_visual_style(f"diff--{line.kind}")
            text = Content.styled(f"{_MARK[line.kind]} {line.text}".expandtabs(4), style)
            if width:
                number = str(line.number).rjust(width) if line.number is not None else " " * width
                text = Content.assemble((number, number_style), " ", text)
            rows.append(text)
        if self.folded:
            stats = diff_stats(self.lines[self.max_lines :])
            more = f"… {counted(self.folded, 'more line')} ({stats}), click to show them"
            rows.append(Content.styled(more, self.get_visual_style("diff--hunk")))
        if not rows:
            rows.append(Content("(no changes)"))
        return Content("\n").join(rows)

    def on_click(self) -> None:
        if self.folded:
            self.unfolded = True
            self.refresh(layout=True)
