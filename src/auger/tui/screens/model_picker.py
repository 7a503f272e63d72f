"""The /model picker: configured providers' models, filtered as you type."""

from __future__ import annotations

from textual.content import Content

from auger.tui.screens.picker import FilterPicker


class ModelPicker(FilterPicker[str]):
    TITLE = "Switch model (next turn, same thread)"
    PLACEHOLDER = "Filter models, or type provider:model"

    def __init__(self, models: list[str], current: str | None) -> None:
        super().__init__()
        self.models = models
        self.current = current

    async def rows(self, query: str) -> list[tuple[str, Content | str]]:
        words = query.lower().split()
        out: list[tuple[str, Content | str]] = []
        for spec in self.models:
            if all(w in spec.lower() for w in words):
                mark = "● " if spec == self.current else "  "
                out.append((spec, mark + spec))
        typed = query.strip()
        if ":" in typed and typed not in self.models:
            out.append((typed, f"  {typed}  (use this spec)"))
        return out
