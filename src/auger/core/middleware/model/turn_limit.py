"""TurnLimitMiddleware: at most `context.max_turns` model calls per user prompt.

Counts the AI messages since the last human message (so the count survives approval
interrupts and resumes) and, at the cap, ends the run with a plain final message marked
`auger_turn_limit` instead of raising. The same check ends the turn after a plan nobody accepted
(`auger.core.middleware.prompt.plan_mode.plan_left_open`), with no message.

The check rides on the model call, as its outermost auger wrapper: it answers in the model's
place (the limit's message, or nothing) and sets `jump_to: end`, which the edge after the model
node follows — instead of a `before_model` node, a graph step of its own before every call.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from auger.core.middleware.prompt.plan_mode import plan_left_open

TURN_LIMIT_FLAG = "auger_turn_limit"


def _calls_this_prompt(messages: list[Any]) -> int:
    since = itertools.takewhile(lambda msg: not isinstance(msg, HumanMessage), reversed(messages))
    return sum(isinstance(msg, AIMessage) for msg in since)


class TurnLimitMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def stop(self, request: ModelRequest) -> ExtendedModelResponse[Any] | None:
        """The turn's end in the model's place, or None to call the model."""
        end: Command[Any] = Command(update={"jump_to": "end"})
        if plan_left_open(request.state, request.runtime):
            return ExtendedModelResponse(model_response=ModelResponse(result=[]), command=end)
        limit = getattr(request.runtime.context, "max_turns", None)
        if not limit or _calls_this_prompt(request.state.get("messages", [])) < limit:
            return None
        text = (
            f"Stopped: this prompt reached the limit of {limit} model calls (max_turns). "
            "Ask me to continue, or raise the limit with --max-turns / `auger config set max_turns N`."
        )
        message = AIMessage(content=text, additional_kwargs={TURN_LIMIT_FLAG: True})
        return ExtendedModelResponse(model_response=ModelResponse(result=[message]), command=end)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return self.stop(request) or handler(request)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]
    ) -> Any:
        return self.stop(request) or await handler(request)
