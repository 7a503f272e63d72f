"""The /threads picker: this project's threads (Ctrl+A: all projects), filtered by title and
searched by content as you type. Enter resumes; Ctrl+E renames, Ctrl+D deletes (twice), Ctrl+F
forks and resumes the fork."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Input

from auger.core.port import counted, snippet_parts
from auger.errors import AugerError
from auger.tui.format import one_line
from auger.tui.screens.picker import FilterPicker

if TYPE_CHECKING:
    from auger.core.port import AgentPort, ThreadInfo

LIMIT = 200


def age(ts: float, now: float) -> str:
    seconds = max(0, now - ts)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


class ThreadPicker(FilterPicker[str]):
    TITLE = "Threads"
    PLACEHOLDER = "Filter by title, or search the conversations"
    HINT = "Enter resume · Ctrl+E rename · Ctrl+D delete · Ctrl+F fork · Ctrl+A all projects · Esc close"
    BINDINGS: ClassVar = [
        Binding("ctrl+e", "rename", "Rename", priority=True, id="threads.rename"),
        Binding("ctrl+d", "delete", "Delete", priority=True, id="threads.delete"),
        Binding("ctrl+f", "fork", "Fork", priority=True, id="threads.fork"),
        Binding("ctrl+a", "all_projects", "All projects", priority=True, id="threads.all"),
    ]

    def __init__(self, port: AgentPort, *, query: str = "") -> None:
        super().__init__(query)
        self.port = port
        self.current = port.thread_id
        self.all_projects = False
        self._delete_armed: str | None = None
        self._renaming: str | None = None
        self.infos: dict[str, ThreadInfo] = {}

    def extra(self) -> ComposeResult:
        yield Input(placeholder="New title (Enter to save, Esc to cancel)", id="picker-rename")

    async def rows(self, query: str) -> list[tuple[str, Content | str]]:
        every = self.all_projects
        recent = await self.port.list_threads(all_projects=every, limit=LIMIT)
        words = query.lower().split()
        found: list[ThreadInfo] = [t for t in recent if all(w in (t.title or "").lower() for w in words)]
        if words:
            seen = {t.id for t in found}
            with contextlib.suppress(AugerError):  # a query FTS cannot read: titles only
                hits = await self.port.list_threads(search=query, all_projects=every, limit=50)
                found += [t for t in hits if t.id not in seen]
        self.infos = {t.id: t for t in found}
        now = time.time()
        return [(t.id, self._label(t, now)) for t in found]

    def _label(self, info: ThreadInfo, now: float) -> Content:
        mark = "● " if info.id == self.current else "  "
        title = one_line(info.title or "(untitled)", 60)
        facts = (
            age(info.updated_at, now),
            counted(info.message_count, "msg"),
            info.model or "?",
            info.id[:8],
        )
        meta = "  " + " · ".join(facts)
        parts: list[tuple[str, str] | str] = [mark, title, (meta, "dim")]
        if info.snippet:
            parts.append("\n    ")
            for text, hit in snippet_parts(one_line(info.snippet, 100)):
                parts.append((text, "bold italic" if hit else "italic"))
        return Content.assemble(*parts)

    # -- actions ---------------------------------------------------------------------------
    async def _refresh(self, note: str) -> None:
        await self.refill(self.query_one("#picker-filter", Input).value)
        self.notify(note)

    async def action_all_projects(self) -> None:
        self.all_projects = not self.all_projects
        await self._refresh("All projects" if self.all_projects else "This project")

    def action_rename(self) -> None:
        target = self.selected
        if target is None:
            return
        self._renaming = target
        box = self.query_one("#picker-rename", Input)
        box.value = self.infos[target].title if target in self.infos else ""
        self.add_class("-renaming")
        box.focus()

    @on(Input.Submitted, "#picker-rename")
    async def _renamed(self, event: Input.Submitted) -> None:
        event.stop()
        if self._renaming and event.value.strip():
            await self.port.rename_thread(event.value, self._renaming)
        self._end_rename()
        await self._refresh("Renamed.")

    def _end_rename(self) -> None:
        self._renaming = None
        self.remove_class("-renaming")
        self.query_one("#picker-filter", Input).focus()

    async def action_dismiss(self, result: str | None = None) -> None:
        if self._renaming:  # Esc ends the renaming, not the picker
            self._end_rename()
        else:
            await super().action_dismiss(result)

    async def action_delete(self) -> None:
        target = self.selected
        if target is None:
            return
        if target == self.current:
            self.notify("This is the thread you are in; switch first to delete it.", severity="warning")
            return
        if self._delete_armed != target:
            self._delete_armed = target
            self.notify("Press Ctrl+D again to delete this thread.", severity="warning")
            return
        self._delete_armed = None
        await self.port.delete_thread(target)
        await self._refresh("Deleted.")

    async def action_fork(self) -> None:
        target = self.selected
        if target is None:
            return
        try:
            new_id = await self.port.fork_thread(target)
        except AugerError as exc:
            self.notify(str(exc), severity="error")
            return
        self.dismiss(new_id)
