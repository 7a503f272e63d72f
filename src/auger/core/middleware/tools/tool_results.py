"""ToolResultsMiddleware: every tool call ends in a ToolMessage that tells the truth.

* A tool that raises (a backend refusing a symlink that leads out of the project, an MCP
  adapter meeting content it cannot convert, any bug in a tool) becomes an error result the
  model reads — "Error: read_file failed: ..." — and the turn goes on; LangGraph's ToolNode would
  re-raise it and end the whole turn. Interrupts (approvals), cancellation and a model's failure
  (a provider error; whatever escapes a subagent) pass through and end the turn as before.
* `execute` that exits non-zero or times out is `status="error"` (deepagents reports every
  finished command as a success with the exit code in the text), so `tool_call_finished`
  says "error" and PostToolUseFailure hooks fire.
* Text is valid Unicode: lone surrogates (file names that are not UTF-8, bytes a tool decoded
  with `surrogateescape`) become U+FFFD before the result enters state — a provider request
  (JSON, UTF-8) or the terminal could not carry them.

It is the innermost of the safety middleware (after hooks, permissions and redaction), so hooks
see the true status and redaction covers the error texts.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from auger.core.middleware.tools.redaction import map_tool_messages
from auger.core.text import clean_content

log = logging.getLogger("auger.tools")


def _passes_through(request: Any, exc: BaseException) -> bool:
    """Exceptions that are not tool failures: control flow (approval interrupts, Command jumps), and
    a model's failure — a provider error, or anything escaping a subagent (`task`: the subagent's
    own tools already end in results, so what escapes it comes from its model calls). Those end the
    turn as a failure of the main model would (a reply that did not finish is never run, and the
    main agent does not retry a broken provider call by call)."""
    from langgraph.errors import GraphBubbleUp

    from auger.errors import ProviderError

    if isinstance(exc, GraphBubbleUp | ProviderError):
        return True
    return str(request.tool_call.get("name")) == "task"


def error_result(call: dict[str, Any], exc: BaseException) -> ToolMessage:
    name = str(call.get("name") or "tool")
    detail = str(exc) or type(exc).__name__
    log.warning("tool %s raised %s: %s", name, type(exc).__name__, detail, exc_info=exc)
    return ToolMessage(
        clean_content(f"Error: {name} failed: {detail}"),
        tool_call_id=str(call.get("id") or ""),
        name=name,
        status="error",
    )


def _exit_code(msg: ToolMessage) -> int | None:
    artifact = msg.artifact
    code = artifact.get("exit_code") if isinstance(artifact, dict) else None
    return code if isinstance(code, int) else None


def truthful(msg: ToolMessage) -> ToolMessage:
    """`msg` with an honest status and clean text."""
    update: dict[str, Any] = {}
    content = clean_content(msg.content)
    if content is not msg.content:
        update["content"] = content
    code = _exit_code(msg) if msg.name == "execute" else None
    if code not in (None, 0) and msg.status != "error":
        update["status"] = "error"
    return msg.model_copy(update=update) if update else msg


class ToolResultsMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            result = handler(request)
        except Exception as exc:
            if _passes_through(request, exc):
                raise
            return error_result(request.tool_call, exc)
        return map_tool_messages(result, truthful)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            result = await handler(request)
        except Exception as exc:
            if _passes_through(request, exc):
                raise
            return error_result(request.tool_call, exc)
        return map_tool_messages(result, truthful)
