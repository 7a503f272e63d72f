"""ResumeStateMiddleware: what a resumed thread needs at once, kept in checkpointed state.

With each model call of the main agent it stores

* `_context_tokens` — the context size of the last call (the provider's `usage_metadata`
  total: prompt + reply, which is what the next call starts from), and
* `_model_spec` — the `provider:model` that made the call (the tag ConfigurableModelMiddleware
  puts on the reply, else the run context's spec),

so `Session.open_thread` can show the token count and go back to the thread's own model without
replaying history. Both keys are private: they are not passed to or merged back from subagents.
The update rides on the model call's own result (a `Command` next to the reply), not in an
`after_model` hook: a hook is a graph step of its own, with its own checkpoint, on every model call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, PrivateStateAttr
from langchain_core.messages import AIMessage
from langgraph.types import Command

from auger.core.middleware.model.configurable_model import SPEC_KEY

CONTEXT_TOKENS = "_context_tokens"
MODEL_SPEC = "_model_spec"


class ResumeState(AgentState):  # type: ignore[type-arg]
    _context_tokens: NotRequired[Annotated[int, PrivateStateAttr]]
    _model_spec: NotRequired[Annotated[str | None, PrivateStateAttr]]


def resume_update(state: Any, ctx: Any, last: Any) -> dict[str, Any] | None:
    """The state update for the model reply `last`, or None if there is nothing new."""
    if not isinstance(last, AIMessage):
        return None
    update: dict[str, Any] = {}
    usage: dict[str, Any] = dict(last.usage_metadata or {})
    tokens = int(usage.get("total_tokens") or 0) or int(usage.get("input_tokens") or 0)
    if tokens and tokens != state.get(CONTEXT_TOKENS):
        update[CONTEXT_TOKENS] = tokens
    spec = last.response_metadata.get(SPEC_KEY) or getattr(ctx, "model_spec", None)
    if spec and spec != state.get(MODEL_SPEC):
        update[MODEL_SPEC] = spec
    return update or None


def estimated_context(messages: list[Any], known: int, prompt: tuple[Any, list[Any]] | None = None) -> int:
    """The context size after a turn that ended with no usage report (interrupted, broken off):
    the last reported size, plus an estimate of every message after the reply that reported it
    (the prompt, tool results, the partial answer kept in the thread). With no reported reply in
    the thread, `prompt` — the (system message, tool schemas) the model was sent — counts too:
    a report would have included them."""
    from langchain_core.messages.utils import count_tokens_approximately

    after_report = (
        len(messages) - i
        for i, m in enumerate(reversed(messages))
        if isinstance(m, AIMessage) and m.usage_metadata and m.usage_metadata.get("total_tokens")
    )
    start = next(after_report, 0)  # just after the last reply that reported its size
    later = messages[start:]
    if start == 0 and not known and prompt is not None:
        system, tools = prompt
        later = [*([system] if system is not None else []), *later]
        return known + count_tokens_approximately(later, tools=tools or None)
    return known + (count_tokens_approximately(later) if later else 0)


def _with_update(request: ModelRequest, response: Any) -> Any:
    messages = response.result if isinstance(response, ModelResponse) else None
    reply = messages[-1] if messages else None
    update = resume_update(request.state, request.runtime.context, reply)
    return ExtendedModelResponse(response, Command(update=update)) if update else response


class ResumeStateMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    state_schema = ResumeState

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return _with_update(request, handler(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return _with_update(request, await handler(request))
