"""The transcript: a bottom-anchored scroll of blocks, pruned past a budget.

The conversation itself lives in the checkpointer; the DOM keeps only the newest blocks, at most
`budget` widgets in all (a widget costs tens of KB and every layout pass walks them all), so a
long session stays as fast and as small as a short one. A reply is a run of segments
(`StreamedMarkdown`), and one reply longer than the budget loses its oldest segments. Blocks
scrolled out of view drop their rendered lines (`release_offscreen`, after each turn): a good
part of what a widget holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from textual.containers import VerticalScroll
from textual.geometry import NULL_SIZE
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from auger.tui.widgets.start_header import StartHeader


class PrunedNote(Static):
    """Shown at the top once old blocks have been pruned."""


NOT_BLOCKS = (PrunedNote, StartHeader)


class Transcript(VerticalScroll):
    can_focus = False

    class Pruned(Message):
        """Old blocks left the DOM."""

    class Grew(Message):
        """A block inside the transcript mounted more widgets (a long reply's new segment)."""

    def on_transcript_grew(self, message: Grew) -> None:
        message.stop()
        self.prune()

    def __init__(self, budget: int, header: Callable[[], StartHeader], **kwargs: object) -> None:
        """`header`: makes what the transcript shows at its top while empty (again after `clear`)."""
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.budget = max(10, budget)
        self.pruned = 0
        self._make_header = header
        self.header = header()

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.header

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, *widgets: Widget, after: Widget | None = None) -> None:
        """Mount blocks (at the end unless `after` is given), then prune."""
        await self.mount_all(widgets, after=after)
        self.prune()

    def blocks(self) -> list[Widget]:
        return [child for child in self.children if not isinstance(child, NOT_BLOCKS)]

    def prune(self) -> None:
        blocks = self.blocks()
        weights = [len(b.walk_children(with_self=True)) for b in blocks]  # each block's widgets
        total = sum(weights)
        if total <= self.budget:
            return
        target = self.budget * 3 // 4  # prune in batches, not one block per new block
        cut = 0
        while cut < len(blocks) - 1 and total > target:
            total -= weights[cut]
            cut += 1
        old = blocks[:cut]
        dropped = len(old)
        if old:
            self.remove_children([*old, *(c for c in self.children if c is self.header)])
        first = blocks[cut] if cut < len(blocks) else None
        drop_oldest = getattr(first, "drop_oldest", None)
        if total > target and drop_oldest is not None:  # one long reply: its oldest segments
            dropped += drop_oldest(total - target)
        if not dropped:
            return
        self.pruned += dropped
        self.post_message(self.Pruned())
        note = self.query(PrunedNote)
        text = (
            f"{self.pruned} earlier blocks are not shown (the whole conversation is kept in the "
            "thread; /export writes it to a file)."
        )
        if note:
            note.first().update(text)
        else:
            self.mount(PrunedNote(text, markup=False), before=0)

    def release_offscreen(self) -> int:
        """Drop the rendered lines of blocks out of view (Textual keeps each widget's last render
        in two caches; the lines are made again if the block is scrolled back into view).
        Returns how many widgets released something."""
        top = self.scroll_offset.y
        bottom = top + self.scrollable_content_region.height
        released = 0
        for block in self.children:
            region = block.virtual_region_with_margin
            if region.bottom > top and region.y < bottom:
                continue
            for widget in (block, *block.walk_children(Widget)):
                released += _release_render(widget)
        return released

    async def clear(self) -> None:
        """Empty the transcript: the start header shows again."""
        self.pruned = 0
        await self.remove_children([c for c in self.children if c is not self.header])
        if self.header not in self.children:
            self.header = self._make_header()
            await self.mount(self.header)


def _release_render(widget: Widget) -> int:
    """Empty `widget`'s render caches (Textual 8 internals: the StylesCache of finished lines and
    the `_render_cache` of content lines) and mark it dirty so a later paint renders it again."""
    drop_strips = getattr(widget, "drop_strips", None)  # MarkdownLines' own cache of them
    dropped = drop_strips() if drop_strips is not None else 0
    with contextlib.suppress(AttributeError, TypeError):
        cache = widget._render_cache
        if not cache.lines and not widget._styles_cache._cache:
            return 1 if dropped else 0
        widget._styles_cache.clear()
        widget._render_cache = cache._replace(size=NULL_SIZE, lines=[])
        widget._dirty_regions.add(widget.outer_size.region)
        return 1
    return 0
