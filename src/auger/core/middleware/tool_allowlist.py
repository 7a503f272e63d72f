"""ToolAllowListMiddleware: a subagent defined with `tools: [...]` sees and runs only those tools.

deepagents gives every declarative subagent the file tools (and the shell) from its
FilesystemMiddleware whatever the spec says; this middleware removes every other tool from each
model request and refuses, with a message the model can read, a call to a tool outside the list.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import ToolMessage


def tool_name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        name = tool.get("name") or (tool.get("function") or {}).get("name")
    else:
        name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None


class ToolAllowListMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, allowed: Iterable[str]) -> None:
        super().__init__()
        self.allowed = frozenset(allowed)

    def _filter(self, request: ModelRequest) -> ModelRequest:
        tools = [t for t in request.tools if tool_name(t) in self.allowed]
        return request.override(tools=tools) if len(tools) != len(request.tools) else request

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        return handler(self._filter(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._filter(request))

    def _refusal(self, request: Any) -> ToolMessage | None:
        name = request.tool_call["name"]
        if name in self.allowed:
            return None
        allowed = ", ".join(sorted(self.allowed)) or "none"
        return ToolMessage(
            content=f"Error: the tool {name!r} is not available to this agent (allowed: {allowed}).",
            tool_call_id=request.tool_call.get("id") or "",
            name=name,
            status="error",
        )

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._refusal(request) or handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._refusal(request) or await handler(request)
