"""RedactionMiddleware: secret values never enter the graph state (and so the thread DB).

Tool results (plain `ToolMessage`s and those inside a `Command` update, e.g. from `task`) and
model replies (text and tool-call arguments) are passed through `auger.core.safety.redaction`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.messages import BaseMessage
from langgraph.types import Command

from auger.core.safety.redaction import Redactor, default_redactor


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


class RedactionMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self._redactor = redactor

    @property
    def redactor(self) -> Redactor:
        return self._redactor or default_redactor()

    def _tool_result(self, result: Any) -> Any:
        redactor = self.redactor
        return map_tool_messages(result, redactor.message) if redactor else result

    def _model_result(self, result: Any) -> Any:
        redactor = self.redactor
        if not redactor:
            return result
        if isinstance(result, ExtendedModelResponse):
            return dataclasses.replace(result, model_response=self._model_result(result.model_response))
        if isinstance(result, ModelResponse):
            return dataclasses.replace(result, result=[redactor.message(m) for m in result.result])
        if isinstance(result, BaseMessage):
            return redactor.message(result)
        return result

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._tool_result(handler(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._tool_result(await handler(request))

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._model_result(handler(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._model_result(await handler(request))
