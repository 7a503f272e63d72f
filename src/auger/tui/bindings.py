"""Application key bindings, as data. Every binding has an id, so users can remap it in config:

    [tui.keys]
    "app.cancel" = "escape,ctrl+x"

(ids of the prompt and approval bindings live beside their widgets: `prompt.*`, `approval.*`).
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
]


def keymap_from_settings(data: Mapping[str, Any]) -> dict[str, str]:
    """`[tui.keys]` from the merged config: binding id -> comma-separated keys."""
    keys = (data.get("tui") or {}).get("keys") or {}
    return {str(k): str(v) for k, v in keys.items() if isinstance(v, str) and v.strip()}
