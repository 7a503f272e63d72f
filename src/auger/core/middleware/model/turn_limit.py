"""TurnLimitMiddleware: at most `context.max_turns` model calls per user prompt.

Counts the AI messages since the last human message (so the count survives approval
interrupts and resumes) and, at the cap, ends the run with a plain final message marked
`auger_turn_limit` instead of raising. The same check before each model call ends the turn after
a plan nobody accepted (`auger.core.middleware.prompt.plan_mode.plan_left_open`): one graph step
for both reasons to stop, not one each.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import hook_config
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from auger.core.middleware.prompt.plan_mode import plan_left_open

TURN_LIMIT_FLAG = "auger_turn_limit"


def _calls_this_prompt(messages: list[Any]) -> int:
    count = 0
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage):
            break
        if isinstance(msg, AIMessage):
            count += 1
    return count


class TurnLimitMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        if plan_left_open(state, runtime):
            return {"jump_to": "end"}
        limit = getattr(runtime.context, "max_turns", None)
        if not limit:
            return None
        if _calls_this_prompt(state.get("messages", [])) < limit:
            return None
        text = (
            f"Stopped: this prompt reached the limit of {limit} model calls (max_turns). "
            "Ask me to continue, or raise the limit with --max-turns / `auger config set max_turns N`."
        )
        return {
            "jump_to": "end",
            "messages": [AIMessage(content=text, additional_kwargs={TURN_LIMIT_FLAG: True})],
        }

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self.before_model(state, runtime)
