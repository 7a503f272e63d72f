"""The agent's todo list (from `TodosUpdated`), docked above the input; hidden when empty."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}


class TodoPanel(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, classes="-empty", **kwargs)
        self.todos: list[dict[str, Any]] = []

    def set_todos(self, todos: list[dict[str, Any]]) -> None:
        self.todos = list(todos)
        self.set_class(not self.todos, "-empty")
        done = sum(1 for t in self.todos if t.get("status") == "completed")
        lines = [f"Todos {done}/{len(self.todos)}"]
        for todo in self.todos:
            mark = MARKS.get(str(todo.get("status")), "☐")
            lines.append(f"{mark} {todo.get('content', '')}")
        self.update("\n".join(lines) if self.todos else "")
