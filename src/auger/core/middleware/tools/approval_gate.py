"""ApprovalGateMiddleware: the approval prompt asked as the tool call starts, not in a graph node.

deepagents' `interrupt_on` puts langchain's `HumanInTheLoopMiddleware` in the graph as an
`after_model` node: a graph step after every model call (a checkpoint, its writes, their thread
hops, its tasks) although nearly every step asks nothing. The gate takes the same `interrupt_on`
config and asks in `wrap_tool_call` instead, so a step without an approval costs no node at all.

What a front end sees is unchanged: the interrupt's value is HITL's own
`{"action_requests": [...], "review_configs": [...]}` for the call, resumed with
`{"decisions": [{"type": "approve" | "reject", "message"?}]}`, and a rejected call's result is
HITL's own ToolMessage. Every gated tool allows those two decisions only
(`auger.core.middleware.tools.permissions.interrupt_config`): HITL refuses any other, an "edit"
included, with its own ValueError. The differences: each gated call of a reply asks in an interrupt of its
own (all of them in the same step, answered together by interrupt id, as the MCP gate already
does) and a call that needs no approval runs while its siblings wait for theirs. It is the
OUTERMOST of auger's tool wrappers: LangGraph runs a resumed tool call again from the top, and
nothing before the gate may have done anything by then (hooks, snapshots, the tool).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain_core.messages import ToolMessage
from langgraph.runtime import get_runtime
from langgraph.types import interrupt


class ApprovalGateMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, interrupt_on: dict[str, Any]) -> None:
        super().__init__()
        # HITL's own reading of the config, request and decisions: the same prompts, the same
        # refusals, the same errors for a decision the config does not allow
        self._hitl = HumanInTheLoopMiddleware(interrupt_on=interrupt_on)

    def _refusal(self, request: Any) -> ToolMessage | None:
        """The message the model reads instead of the tool's result (a rejected call), or None."""
        call = request.tool_call
        config = self._hitl.interrupt_on.get(call["name"])
        if config is None:
            return None
        when = config.get("when")
        if when is not None and not when(request):
            return None
        action, review = self._hitl._create_action_and_config(call, config, request.state, get_runtime())
        decisions = interrupt({"action_requests": [action], "review_configs": [review]})["decisions"]
        if len(decisions) != 1:
            raise ValueError(f"Number of human decisions ({len(decisions)}) does not match 1 tool call.")
        return self._hitl._process_decision(decisions[0], call, config)[1]

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        message = self._refusal(request)
        return message if message is not None else handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        message = self._refusal(request)
        return message if message is not None else await handler(request)
