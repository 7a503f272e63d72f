"""IR events -> ACP session updates (what the editor draws), for live turns and replayed history.

| IR event | ACP `session/update` |
|---|---|
| TurnStarted (replay only) | `user_message_chunk` with the prompt |
| TextDelta / ReasoningDelta of the main agent | `agent_message_chunk` / `agent_thought_chunk` |
| ToolCallStarted | `tool_call` (kind, title, locations, raw input; a diff for write_file / edit_file) |
| ToolCallFinished | `tool_call_update` (completed / failed, the output as text) |
| TodosUpdated (and write_todos calls) | `plan` |
| Notice (warning), Error | `agent_message_chunk` with the message on a line of its own |

Subagent (`task`) tool calls appear as tool calls of their own; a subagent's text is its
`task` call's output. File paths are the agent's (`/src/x.py`, rooted at the project): ACP wants
absolute host paths, so `/x` becomes `<root>/x`; a mount (`/~auger/...`) has no location.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acp import schema as s
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)

from auger.core import events as ev

Update = Any  # one of the ACP session update models
KINDS: dict[str, s.ToolKind] = {
    "read_file": "read",
    "ls": "search",
    "glob": "search",
    "grep": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "delete": "delete",
    "execute": "execute",
    "task": "think",
    "web_fetch": "fetch",
    "fetch_url": "fetch",
    "web_search": "fetch",
}
PLAN_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
OUTPUT_LIMIT = 20_000  # characters of a tool's output shown in the editor


class UpdateMapper:
    """Turns the events of one session into ACP updates; `root` is the project folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def updates(self, event: ev.Event, *, replay: bool = False) -> Iterator[Update]:
        if isinstance(event, ev.TurnStarted):
            if replay:
                yield update_user_message_text(event.prompt)
        elif isinstance(event, ev.TextDelta | ev.ReasoningDelta):
            if event.parent_id is None and event.text:
                chunk = (
                    update_agent_message_text
                    if isinstance(event, ev.TextDelta)
                    else update_agent_thought_text
                )
                yield chunk(event.text)
        elif isinstance(event, ev.ToolCallStarted):
            yield from self._started(event, replay)
        elif isinstance(event, ev.ToolCallFinished):
            if event.name != "write_todos":
                yield self._finished(event)
        elif isinstance(event, ev.TodosUpdated):
            if event.parent_id is None:
                yield plan(event.todos)
        elif (isinstance(event, ev.Notice) and event.level == "warning") or isinstance(event, ev.Error):
            yield update_agent_message_text(f"\n\n> auger: {event.message}\n\n")

    def _started(self, event: ev.ToolCallStarted, replay: bool) -> Iterator[Update]:
        if event.name == "write_todos":
            if event.parent_id is None and replay and isinstance(event.args.get("todos"), list):
                yield plan(event.args["todos"])
            return
        path = self.host_path(event.args.get("file_path") or event.args.get("path"))
        meta = {"auger": {"tool": event.name, "parent_id": event.parent_id}}
        start = start_tool_call(
            event.call_id,
            title(event.name, event.args),
            kind=KINDS.get(event.name, "other"),
            status="pending",
            content=self.diff(event.name, event.args, path),
            locations=[s.ToolCallLocation(path=path)] if path else None,
            raw_input=event.args,
        )
        yield start.model_copy(update={"field_meta": meta})

    def _finished(self, event: ev.ToolCallFinished) -> Update:
        output = event.output if len(event.output) <= OUTPUT_LIMIT else event.output[:OUTPUT_LIMIT] + "\n…"
        text = f"```\n{output}\n```" if event.name == "execute" and output else output
        return update_tool_call(
            event.call_id,
            status="completed" if event.status == "success" else "failed",
            content=[tool_content(text_block(text))] if text else None,
            raw_output={"output": event.output, "status": event.status},
        )

    def host_path(self, path: Any) -> str | None:
        """The absolute host path of an agent path, None for a mount or no path."""
        if not isinstance(path, str) or not path or path.startswith("/~"):
            return None
        return str(self.root / path.lstrip("/"))

    def diff(self, name: str, args: dict[str, Any], path: str | None) -> list[Any] | None:
        if path is None:
            return None
        if name == "write_file" and isinstance(args.get("content"), str):
            return [tool_diff_content(path, args["content"])]
        if name == "edit_file" and isinstance(args.get("new_string"), str):
            return [tool_diff_content(path, args["new_string"], str(args.get("old_string") or ""))]
        return None


def title(name: str, args: dict[str, Any]) -> str:
    """A one-line title: `Read src/x.py`, `Run pytest -q`, `Search "TODO"`."""
    path = args.get("file_path") or args.get("path") or ""
    titles = {
        "read_file": f"Read {path}",
        "write_file": f"Write {path}",
        "edit_file": f"Edit {path}",
        "delete": f"Delete {path}",
        "ls": f"List {path or '/'}",
        "glob": f"Find {args.get('pattern', '')}",
        "grep": f"Search {json.dumps(args.get('pattern', ''))}",
        "execute": f"Run {args.get('command', '')}",
        "task": f"{args.get('subagent_type') or 'Subagent'}: {args.get('description', '')}",
    }
    text = titles.get(name) or f"{name} {json.dumps(args, ensure_ascii=False)}"
    return text if len(text) <= 200 else text[:199] + "…"


def plan(todos: list[Any]) -> Update:
    entries = [
        plan_entry(str(todo.get("content", "")), status=PLAN_STATUS.get(todo.get("status"), "pending"))  # type: ignore[arg-type]
        for todo in todos
        if isinstance(todo, dict)
    ]
    return update_plan(entries)
