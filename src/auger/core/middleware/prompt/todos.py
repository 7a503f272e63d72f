"""TodoListMiddleware with its one check riding on the model call, not in a graph node of its own.

langchain's TodoListMiddleware (`write_todos`, its system-prompt section; auger's shorter texts for
both, `auger.core.agent.prompt`) refuses a reply that calls
`write_todos` more than once in parallel, in an `after_model` hook: a graph step (a task and a
checkpoint) after every model call, to find nothing on almost all of them. `TodoListInCall` runs the
same check (the SDK's own `after_model`) on the reply inside its `wrap_model_call` and returns the
refusals as a state update next to the reply (an `ExtendedModelResponse` command), so they enter the
thread right after the reply, where the hook put them; the reply the outer middlewares see is the
model's. A refused call has its result, so it never reaches the tools (nor their approval prompt).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse, TodoListMiddleware
from langgraph.types import Command

from auger.core.agent.prompt import TODOS_SYSTEM_PROMPT, TODOS_TOOL_DESCRIPTION
from auger.core.middleware.layers import split_response, with_commands


class TodoListInCall(TodoListMiddleware):  # type: ignore[type-arg]
    def __init__(self) -> None:
        super().__init__(system_prompt=TODOS_SYSTEM_PROMPT, tool_description=TODOS_TOOL_DESCRIPTION)

    @property
    def name(self) -> str:
        return "TodoListMiddleware"

    after_model = AgentMiddleware.after_model  # no graph node after each model call
    aafter_model = AgentMiddleware.aafter_model

    def _checked(self, request: ModelRequest, response: Any) -> Any:
        reply, commands = split_response(response)
        refused = TodoListMiddleware.after_model(self, {"messages": list(reply.result)}, request.runtime)  # type: ignore[arg-type]
        if not refused:
            return response
        return with_commands(reply, [*commands, Command(update=refused)])

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return self._checked(request, super().wrap_model_call(request, handler))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return self._checked(request, await super().awrap_model_call(request, handler))
