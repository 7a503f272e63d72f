"""PlanModeMiddleware: in plan mode the model sees read-only tools only and is told it is planning.

* Before each model call in plan mode (`AugerContext.mode == "plan"`): the tools are narrowed to
  the read-only ones (`auger.core.safety.plan_mode.plan_only`: reads, search, todos, subagents,
  MCP tools whose metadata says `read_only`) and `present_plan`; the system prompt gets the plan
  section. Outside plan mode `present_plan` is not offered. The permission engine refuses
  what is not read-only all the same (`plan_verdict`, in `PermissionMiddleware` and the MCP
  gate), so a call to a tool the model was not offered does not run either.
* `present_plan(plan)` (the main agent's only; subagents get the filter without the tool) is
  asked about like any gated tool. When it runs, the approval is over: accepted (the turn now
  runs in the chosen mode, `ApprovalDecision.mode`) -> the model is told to carry the plan out,
  in the same turn; still in plan mode (a run with nobody to accept it: headless, the chat
  stream) -> the turn ends right after it, with no further model call (`plan_left_open`, asked by
  TurnLimitMiddleware's check on each model call). "Keep planning" is the
  approval's rejection: the model reads the user's feedback as the call's result.

It sits inside McpToolsMiddleware, so it sees (and narrows) the MCP tools too.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain.tools import ToolRuntime
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from auger.core.agent.context import AugerContext
from auger.core.middleware.base import RequestShaper, read_only, tool_name
from auger.core.safety.plan_mode import (
    ACCEPTED,
    NOT_ACCEPTED,
    OUTSIDE,
    PLAN_MODE,
    PLAN_PROMPT,
    PLAN_TOOL,
    plan_only,
)

DESCRIPTION = (
    "Plan mode only: present your finished plan (markdown) to the user, who accepts it (you then "
    "carry it out) or sends feedback (revise it and present it again). Call it once per plan."
)


def _mode(runtime: Any) -> str | None:
    ctx = getattr(runtime, "context", None)
    return ctx.mode if isinstance(ctx, AugerContext) else None


def plan_result(runtime: ToolRuntime[AugerContext]) -> str:
    """What the model reads once the plan's approval is over (the tool runs only when approved)."""
    mode = _mode(runtime) or "manual"
    ctx = runtime.context
    verdict = ctx.verdicts.get(runtime.tool_call_id or "") if isinstance(ctx, AugerContext) else None
    if getattr(verdict, "by", None) != "plan":  # called outside plan mode: nothing was asked
        return OUTSIDE.format(mode=mode)
    return NOT_ACCEPTED if mode == PLAN_MODE else ACCEPTED.format(mode=mode)


def present_plan_tool() -> BaseTool:
    def present_plan(plan: str, runtime: ToolRuntime[AugerContext]) -> str:
        return plan_result(runtime)

    return StructuredTool.from_function(present_plan, name=PLAN_TOOL, description=DESCRIPTION)


def plan_left_open(state: Any, runtime: Any) -> bool:
    """Whether the last step presented a plan nobody accepted (still plan mode, the call not
    rejected): the turn ends there, with no further model call. `TurnLimitMiddleware` asks this
    on each model call, so plan mode costs no graph step of its own."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    return (
        isinstance(last, ToolMessage)
        and last.name == PLAN_TOOL
        and last.status != "error"
        and _mode(runtime) == PLAN_MODE
    )


def offered(tools: list[Any], mode: str | None) -> list[Any]:
    """The tools the model is offered in `mode`: in plan mode the read-only ones and
    `present_plan`, in any other mode all but `present_plan` (what `/tools` lists, too)."""
    if mode != PLAN_MODE:
        return [t for t in tools if tool_name(t) != PLAN_TOOL]
    return [t for t in tools if plan_only(tool_name(t) or "", mcp_read_only=read_only(t))]


def with_plan_prompt(system: SystemMessage | None) -> SystemMessage:
    if system is None:
        return SystemMessage(PLAN_PROMPT.strip())
    return SystemMessage(content_blocks=[*system.content_blocks, {"type": "text", "text": PLAN_PROMPT}])


class PlanModeMiddleware(RequestShaper):
    def __init__(self, *, offer_tool: bool = True) -> None:
        super().__init__()
        self.tools = [present_plan_tool()] if offer_tool else []

    def shape(self, request: ModelRequest) -> ModelRequest:
        mode = _mode(request.runtime)
        tools = offered(list(request.tools), mode)
        if mode != PLAN_MODE:
            return request.override(tools=tools) if len(tools) != len(request.tools) else request
        return request.override(tools=tools, system_message=with_plan_prompt(request.system_message))
