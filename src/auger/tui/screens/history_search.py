"""Ctrl+R: search the prompt history, newest first; Enter puts the prompt back in the input."""

from __future__ import annotations

from textual.content import Content

from auger.tui.format import one_line
from auger.tui.prompt.history import PromptHistory
from auger.tui.screens.picker import FilterPicker


class HistorySearch(FilterPicker[str]):
    TITLE = "Search prompt history"
    PLACEHOLDER = "Words to find"
    HINT = "Enter use · Esc close"

    def __init__(self, history: PromptHistory) -> None:
        super().__init__()
        self.history = history

    async def rows(self, query: str) -> list[tuple[str, Content | str]]:
        return [(text, one_line(text, 100)) for text in self.history.search(query)]
