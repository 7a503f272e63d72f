"""Show a saved conversation (resume, /threads, /fork): the port's `history()` — the same IR
events a live turn emits — as finished blocks, the newest `limit` of them (a live turn streams
into the same widget kinds through `turn.TurnView`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.core import events as ev
from auger.core.port import counted
from auger.core.text import map_event, visible
from auger.tui.widgets.messages import AssistantMessage, Notice, UserMessage
from auger.tui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from pathlib import Path

    from textual.widget import Widget

    from auger.tui.app import AugerApp


def blocks(events: list[ev.Event], root: Path, limit: int) -> list[Widget]:
    out: list[Widget] = []
    rows: dict[str, ToolRow] = {}
    for event in (map_event(e, visible) for e in events):  # saved text never drives the terminal
        if isinstance(event, ev.TurnStarted):
            out.append(UserMessage(event.prompt))
        elif isinstance(event, ev.TextDelta) and event.parent_id is None:
            out.append(AssistantMessage(event.text, classes="assistant"))
        elif isinstance(event, ev.ToolCallStarted) and event.parent_id is None:
            rows[event.call_id] = ToolRow(event.call_id, event.name, event.args, root, applied=True)
            out.append(rows[event.call_id])
        elif isinstance(event, ev.ToolCallFinished) and (row := rows.get(event.call_id)) is not None:
            row.finish(event.status, event.output, event.duration_ms)
        elif isinstance(event, ev.Notice):
            out.append(Notice(event.message, event.level))
    if len(out) > limit:
        note = Notice(f"{counted(len(out) - limit, 'earlier block')} not shown (/export writes them all).")
        out = [note, *out[-limit:]]
    return out


async def replay(app: AugerApp, events: list[ev.Event]) -> int:
    """Show `events` in the transcript; returns the number of user turns in them."""
    widgets = blocks(events, app.settings.project_root, app.transcript.budget)
    if widgets:
        await app.transcript.add(*widgets)
    app.facts.last_reply = next(
        (e.text for e in reversed(events) if isinstance(e, ev.TurnEnded) and e.text), ""
    )
    return sum(isinstance(e, ev.TurnStarted) for e in events)
