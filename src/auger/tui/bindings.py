"""Application key bindings, as data. Every binding has an id, so users can remap it in config:

    [tui.keys]
    "app.cancel" = "escape,ctrl+x"

(ids of the prompt and approval bindings live beside their widgets: `prompt.*`, `approval.*`).

The transcript scrolls from the keyboard wherever the focus is: its keys are priority bindings
(else the prompt's PageUp / Shift+Up would move its cursor). Home / End stay the prompt's line
start / end (a multi-line prompt needs them), so top / bottom are Ctrl+Home / Ctrl+End.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.binding import Binding

APP_BINDINGS: list[Binding] = [
    Binding("escape", "cancel", "Interrupt", id="app.cancel"),
    Binding("escape", "rewind_key", "Rewind (twice)", show=False, id="app.rewind"),
    Binding("ctrl+c", "ctrl_c", "Quit (twice)", priority=True, id="app.quit"),
    Binding("shift+tab", "cycle_mode", "Approval mode", priority=True, id="app.cycle_mode"),
    Binding("ctrl+r", "history_search", "Search history", priority=True, id="app.history_search"),
    Binding("ctrl+g", "editor", "Edit in $EDITOR", priority=True, id="app.editor"),
    Binding("ctrl+o", "toggle_last_tool", "Expand tool", show=False, id="app.toggle_tool"),
    Binding("ctrl+t", "toggle_todos", "Todos", show=False, id="app.toggle_todos"),
    *(
        Binding(
            keys, f"scroll_transcript('{where}')", text, show=False, priority=True, id=f"app.scroll_{where}"
        )
        for keys, where, text in (
            ("pageup,shift+pageup", "page_up", "Scroll up a page"),
            ("pagedown,shift+pagedown", "page_down", "Scroll down a page"),
            ("shift+up", "line_up", "Scroll up a line"),
            ("shift+down", "line_down", "Scroll down a line"),
            ("ctrl+home", "top", "Scroll to the top"),
            ("ctrl+end", "bottom", "Scroll to the end"),
        )
    ),
]


def keymap_from_settings(data: Mapping[str, Any]) -> dict[str, str]:
    """`[tui.keys]` from the merged config: binding id -> comma-separated keys."""
    keys = (data.get("tui") or {}).get("keys") or {}
    return {str(k): str(v) for k, v in keys.items() if isinstance(v, str) and v.strip()}
