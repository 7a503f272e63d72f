"""RewindMiddleware: snapshot the project before the first file-changing tool call of a turn.

Every tool call but the read-only ones (`ls`, `read_file`, `glob`, `grep`, `write_todos`,
`execute_output`, and MCP
tools marked read-only) may change files — file edits, shell commands, other MCP tools, `task`
subagents — so ahead of it the turn's `TurnRecorder` (in the run context; see
`auger.core.rewind.recorder`) takes its "before" snapshot, once per turn. It sits innermost of our
tool-call wrappers (after hooks, permission rules and MCP approvals), so a refused or rejected
call never costs a snapshot.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware

from auger.core.middleware.base import read_only

READ_ONLY_TOOLS = frozenset({"ls", "read_file", "glob", "grep", "write_todos", "execute_output"})


def _recorder(request: Any) -> Any:
    """The turn's recorder when this call may change files, else None."""
    recorder = getattr(getattr(request.runtime, "context", None), "rewind", None)
    if recorder is None or request.tool_call["name"] in READ_ONLY_TOOLS or read_only(request.tool):
        return None
    return recorder


class RewindMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        recorder = _recorder(request)
        if recorder is not None:
            recorder.before_change()
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        recorder = _recorder(request)
        if recorder is not None:
            await recorder.abefore_change()
        return await handler(request)
