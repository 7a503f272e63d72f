"""Two shapes most of auger's middleware share, and the reading of a model call's result, written once.

* `RequestShaper`: changes each model request (its tools, system message or messages) before the
  call — `shape(request)` — in the sync and the async graph alike.
* `ToolFilter`: a shaper that offers the model only some tools and refuses, with a result the model
  reads, a call to a tool it was not offered (a model may call a tool it saw earlier in the thread).
  `offered(request, name, tool)` decides both; `refusal(request)` words the refusal.
* `ai_messages(result)` / `map_reply(result, fn)`: the messages of a model call's result, in any
  of its three shapes (a message, a `ModelResponse`, an `ExtendedModelResponse`).
* `with_messages(request, messages)`: a request with its messages mapped, unchanged if none changed.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage


def tool_name(tool: Any) -> str | None:
    """A tool's name, whether the request holds a tool object or a provider's tool dict."""
    if isinstance(tool, dict):
        name = tool.get("name") or (tool.get("function") or {}).get("name")
    else:
        name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None


def read_only(tool: Any) -> bool:
    """Whether a tool says it only reads (its metadata: MCP tools that declare it, the resource tools)."""
    return bool((getattr(tool, "metadata", None) or {}).get("read_only"))


def ai_messages(result: Any) -> list[AIMessage]:
    """The AI messages of a model call's result."""
    if isinstance(result, ExtendedModelResponse):
        result = result.model_response
    messages = result.result if isinstance(result, ModelResponse) else [result]
    return [m for m in messages if isinstance(m, AIMessage)]


def map_reply(result: Any, fn: Callable[[BaseMessage], BaseMessage]) -> Any:
    """A model call's result with `fn` applied to each of its messages."""
    if isinstance(result, ExtendedModelResponse):
        return dataclasses.replace(result, model_response=map_reply(result.model_response, fn))
    if isinstance(result, ModelResponse):
        return dataclasses.replace(result, result=[fn(m) for m in result.result])
    return fn(result) if isinstance(result, BaseMessage) else result


def with_messages(request: ModelRequest, messages: list[Any]) -> ModelRequest:
    """`request` with `messages` (a per-message map of its own), itself when each is the same object."""
    if all(map(operator.is_, messages, request.messages)):  # C-level: no Python step per message
        return request
    return request.override(messages=messages)


class RequestShaper(AgentMiddleware):  # type: ignore[type-arg]
    def shape(self, request: ModelRequest) -> ModelRequest:
        return request

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        return handler(self.shape(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self.shape(request))


class ToolFilter(RequestShaper):
    def active(self, request: Any) -> bool:
        """Whether the filter applies to this request (a tool-call request has `runtime` too)."""
        return True

    def offered(self, request: Any, name: str, tool: Any) -> bool:
        raise NotImplementedError

    def allows(self, request: Any) -> bool:
        """Whether the tool call in `request` may run (by default: its tool would be offered)."""
        return self.offered(request, str(request.tool_call["name"]), request.tool)

    def refusal(self, request: Any) -> ToolMessage:
        raise NotImplementedError

    def shape(self, request: ModelRequest) -> ModelRequest:
        if not self.active(request):
            return request
        tools = [t for t in request.tools if self.offered(request, tool_name(t) or "", t)]
        return request.override(tools=tools) if len(tools) != len(request.tools) else request

    def _refused(self, request: Any) -> ToolMessage | None:
        if not self.active(request) or self.allows(request):
            return None
        return self.refusal(request)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._refused(request) or handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._refused(request) or await handler(request)
