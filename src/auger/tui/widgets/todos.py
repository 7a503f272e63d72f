"""The agent's todo list (from `TodosUpdated`), docked above the input; hidden when empty."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}


class TodoPanel(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, classes="-empty", **kwargs)

    def set_todos(self, todos: list[dict[str, Any]]) -> None:
        self.set_class(not todos, "-empty")
        done = sum(1 for t in todos if t.get("status") == "completed")
        lines = [f"Todos {done}/{len(todos)}"]
        lines += [f"{MARKS.get(str(t.get('status')), '☐')} {t.get('content', '')}" for t in todos]
        self.update("\n".join(lines) if todos else "")
