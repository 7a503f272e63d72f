"""The /rewind picker (also Esc Esc on an empty prompt): the thread's user turns, newest first,
each with its prompt's first line and, below it, the files it changed; type to filter by prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from auger.tui.rewind_text import files_summary, turn_label
from auger.tui.screens.picker import FilterPicker

if TYPE_CHECKING:
    from auger.core.port import TurnChanges


class TurnPicker(FilterPicker[int]):
    TITLE = "Rewind: go back to before which turn?"
    PLACEHOLDER = "Filter by prompt"

    def __init__(self, turns: list[TurnChanges]) -> None:
        super().__init__()
        self.turns = turns

    async def rows(self, query: str) -> list[tuple[int, Content | str]]:
        words = query.lower().split()
        width = len(str(len(self.turns)))
        out: list[tuple[int, Content | str]] = []
        for turn in reversed(self.turns):
            if all(w in turn.prompt.lower() for w in words):
                number = f"{turn.turn:>{width}}. "
                files = " " * len(number) + files_summary(turn.paths)
                out.append((turn.turn, Content.assemble(number, turn_label(turn), "\n", (files, "dim"))))
        return out
