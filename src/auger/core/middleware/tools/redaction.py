"""RedactionMiddleware: secret values never enter the graph state (and so the thread DB).

Tool results (plain `ToolMessage`s and those inside a `Command` update, e.g. from `task`) and
model replies (text and tool-call arguments) are passed through `auger.core.safety.redaction`. A tool call
whose arguments redaction changed still runs with the arguments the model wrote (kept for the
turn in `AugerContext.originals`, never stored), unless a hook changed them meanwhile: a
`write_file` of a docker-compose file with `postgres://app:app@db` writes that, the thread keeps
`postgres://app:[redacted]@db`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import BaseMessage
from langgraph.types import Command

from auger.core.agent.context import AugerContext
from auger.core.middleware.base import map_reply
from auger.core.safety.redaction import default_redactor


def map_tool_messages(result: Any, fn: Callable[[Any], Any]) -> Any:
    """Apply `fn` to the ToolMessage(s) of a tool call's result (a message or a Command)."""
    from langchain_core.messages import ToolMessage

    if isinstance(result, ToolMessage):
        return fn(result)
    if isinstance(result, Command) and isinstance(result.update, dict):
        messages = result.update.get("messages")
        if isinstance(messages, list):
            mapped = [fn(m) if isinstance(m, ToolMessage) else m for m in messages]
            return dataclasses.replace(result, update={**result.update, "messages": mapped})
    return result


def appended(msg: Any, text: str, **update: Any) -> Any:
    """Tool message `msg` with `text` after what it says (a text block after a list's blocks) and
    the other fields in `update`."""
    if isinstance(msg.content, str):
        content: Any = f"{msg.content}\n\n{text}" if msg.content else text
    else:
        content = [*msg.content, {"type": "text", "text": text}]
    return msg.model_copy(update={**update, "content": content})


class RedactionMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def _tool_result(self, result: Any) -> Any:
        return map_tool_messages(result, default_redactor().message)

    def _model_result(self, result: Any, ctx: Any) -> Any:
        return map_reply(result, lambda m: self._message(m, ctx))

    def _message(self, msg: BaseMessage, ctx: Any) -> BaseMessage:
        out: BaseMessage = default_redactor().message(msg)
        if out is msg or not isinstance(ctx, AugerContext):
            return out
        wrote_calls = getattr(msg, "tool_calls", None) or []
        kept_calls = getattr(out, "tool_calls", None) or []
        for wrote, kept in zip(wrote_calls, kept_calls, strict=True):
            if wrote.get("id") and wrote.get("args") != kept.get("args"):
                ctx.originals[wrote["id"]] = (kept.get("args") or {}, wrote.get("args") or {})
        return out

    @staticmethod
    def _as_written(request: Any) -> Any:
        """The request with the model's own arguments, when only redaction changed them."""
        ctx = getattr(request.runtime, "context", None)
        call = request.tool_call
        found = ctx.originals.get(call.get("id") or "") if isinstance(ctx, AugerContext) else None
        if found is None or (call.get("args") or {}) != found[0]:
            return request
        return request.override(tool_call={**call, "args": found[1]})

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._tool_result(handler(self._as_written(request)))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._tool_result(await handler(self._as_written(request)))

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._model_result(handler(request), getattr(request.runtime, "context", None))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._model_result(await handler(request), getattr(request.runtime, "context", None))
