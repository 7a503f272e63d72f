"""The transcript: a bottom-anchored scroll of blocks, pruned past a budget.

The conversation itself lives in the checkpointer; the DOM keeps only the newest `budget` blocks so
a long session stays as fast as a short one.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static


class PrunedNote(Static):
    """Shown at the top once old blocks have been pruned."""


class Transcript(VerticalScroll):
    can_focus = False

    def __init__(self, budget: int = 400, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.budget = max(10, budget)
        self.pruned = 0

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, *widgets: Widget, before: Widget | None = None, after: Widget | None = None) -> None:
        """Mount blocks (at the end unless `before`/`after` is given), then prune."""
        if before is not None:
            await self.mount_all(widgets, before=before)
        elif after is not None:
            await self.mount_all(widgets, after=after)
        else:
            await self.mount_all(widgets)
        self.prune()

    def blocks(self) -> list[Widget]:
        return [child for child in self.children if not isinstance(child, PrunedNote)]

    def prune(self) -> None:
        blocks = self.blocks()
        if len(blocks) <= self.budget:
            return
        excess = len(blocks) - self.budget + self.budget // 4  # prune in batches, not one per block
        old = blocks[:excess]
        self.pruned += len(old)
        self.remove_children(old)
        note = self.query(PrunedNote)
        text = (
            f"{self.pruned} earlier blocks are not shown (the whole conversation is kept in the "
            "thread; /export writes it to a file)."
        )
        if note:
            note.first().update(text)
        else:
            self.mount(PrunedNote(text, markup=False), before=0)

    async def clear(self) -> None:
        self.pruned = 0
        await self.remove_children()
