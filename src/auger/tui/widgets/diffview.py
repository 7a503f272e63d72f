"""A coloured diff (added / removed / context lines with numbers); colours come from app.tcss."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.widget import Widget

from auger.tui.diffs import DiffLine

_MARK = {"add": "+", "del": "-", "ctx": " ", "hunk": " "}


class DiffView(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--add",
        "diff--del",
        "diff--ctx",
        "diff--hunk",
        "diff--number",
    }

    def __init__(self, lines: list[DiffLine], max_lines: int = 60, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.lines = lines
        self.max_lines = max_lines

    def render(self) -> Content:
        shown = self.lines[: self.max_lines]
        width = max((len(str(line.number)) for line in shown if line.number), default=1)
        number_style = self.get_visual_style("diff--number")
        rows: list[Content] = []
        for line in shown:
            style = self.get_visual_style(f"diff--{line.kind}")
            number = str(line.number).rjust(width) if line.number is not None else " " * width
            rows.append(
                Content.assemble((number, number_style), " ", (f"{_MARK[line.kind]} {line.text}", style))
            )
        if len(self.lines) > len(shown):
            more = f"… {len(self.lines) - len(shown)} more lines (see the file)"
            rows.append(Content.assemble((more, self.get_visual_style("diff--hunk"))))
        if not rows:
            rows.append(Content("(no changes)"))
        return Content("\n").join(rows)
