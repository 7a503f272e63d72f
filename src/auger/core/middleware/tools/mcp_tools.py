"""McpToolsMiddleware: MCP tools join the agent as their servers connect.

The servers start in the background (after the TUI paints), so their tools are not known when
the graph is built. Each model call offers the tools of the servers connected *now*; each tool
call of one of them is executed here. Calls to tools that are not read-only ask for approval
like the shell does (same HITL interrupt shape, so the Session answers them the same way).
While a server offers resources, the model also gets `list_mcp_resources` / `read_mcp_resource`
(read-only). A call's progress notifications reach its tool row (`auger.core.mcp.client.CALL`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.types import interrupt

from auger.core.mcp.client import CALL
from auger.core.middleware.base import RequestShaper, read_only
from auger.core.middleware.tools.permissions import approval_description, mcp_identity, refused, tool_verdict


class McpToolsMiddleware(RequestShaper):
    def __init__(self, manager: Any) -> None:
        super().__init__()
        self.manager = manager
        self._resource_tools: list[BaseTool] | None = None

    def current_tools(self) -> dict[str, BaseTool]:
        tools = {t.name: t for t in self.manager.tools()}
        if self.manager.resources() or self.manager.resource_templates():
            from auger.core.mcp.resources import resource_tools

            if self._resource_tools is None:
                self._resource_tools = resource_tools(self.manager)
            tools.update((t.name, t) for t in self._resource_tools)
        return tools

    def shape(self, request: ModelRequest) -> ModelRequest:
        tools = self.current_tools()
        if not tools:
            return request
        have = {getattr(t, "name", None) for t in request.tools}
        return request.override(tools=[*request.tools, *(t for n, t in tools.items() if n not in have)])

    def _gate(self, request: Any, tool: BaseTool) -> ToolMessage | None:
        """Ask for approval when the verdict says so (permission rules — `server:tool` — then the
        mode; read-only tools are not gated by the mode); a ToolMessage when refused or rejected."""
        ctx = getattr(request.runtime, "context", None)
        name, args = request.tool_call["name"], request.tool_call.get("args", {})
        verdict = tool_verdict(
            ctx,
            name,
            args,
            gated=not read_only(tool),
            mcp=mcp_identity(tool),
            call_id=request.tool_call.get("id"),
        )
        if verdict.action == "deny":
            return refused(request.tool_call, verdict)
        if verdict.action == "allow":
            return None
        action = {"id": request.tool_call.get("id"), "name": name, "args": args}
        answer = interrupt(
            {
                "action_requests": [{**action, "description": approval_description(name, args, verdict)}],
                "review_configs": [{"action_name": name, "allowed_decisions": ["approve", "reject"]}],
            }
        )
        decision = (answer or {}).get("decisions", [{}])[0]
        if decision.get("type") == "approve":
            return None
        reason = decision.get("message") or "The user rejected this tool call; it was not executed."
        return ToolMessage(reason, tool_call_id=request.tool_call["id"], name=name, status="error")

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        tool = self.current_tools().get(request.tool_call["name"])
        if tool is None:
            return await handler(request)
        refused = self._gate(request, tool)
        if refused is not None:
            return refused
        writer = getattr(request.runtime, "stream_writer", None)
        token = CALL.set((str(request.tool_call.get("id") or ""), writer)) if callable(writer) else None
        try:
            return await handler(request.override(tool=tool))
        finally:
            if token is not None:
                CALL.reset(token)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        tool = self.current_tools().get(request.tool_call["name"])
        if tool is None:
            return handler(request)
        refused = self._gate(request, tool)
        return refused if refused is not None else handler(request.override(tool=tool))
