"""ConfigurableModelMiddleware: the model (and its params) for each call come from the run context.

The Session puts `model_spec` and `model_params` (temperature, max_tokens, reasoning_effort, ...)
in `runtime.context`; this middleware swaps the request's model before the call, so `/model`
takes effect on the next turn of the same thread without rebuilding the graph. Built models are
cached per (spec, params).

A subagent defined with its own `model` gets an instance with `pinned` set: it always uses that
spec (the context's params still apply). Every AI message a call produces is tagged with the
effective spec in `response_metadata["auger_model_spec"]`, so the checkpointed history records
which model wrote what (ResumeStateMiddleware reads it; provider_history relies on it).

Every call is also where a reply that did not finish (a cut stream) is refused before it enters
the thread, and tool-call arguments that are not JSON are sent back to the model:
`auger.core.models.replies.complete_reply`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel

from auger.core.middleware.base import ai_messages
from auger.core.models.replies.complete_reply import StreamedToolCalls, ensure_complete, watch

ModelFactory = Callable[[str, dict[str, Any]], BaseChatModel]
SPEC_KEY = "auger_model_spec"
MODEL_PARAMS = ("temperature", "max_tokens", "reasoning_effort", "top_p", "timeout")


def context_params(ctx: Any) -> dict[str, Any]:
    """The model params in the run context, keeping known keys with a value."""
    raw = getattr(ctx, "model_params", None) or {}
    return {k: v for k, v in raw.items() if k in MODEL_PARAMS and v is not None}


def tag_response(response: Any, spec: str | None) -> Any:
    """Record `spec` on every AI message of a model response (any of the three result shapes)."""
    if spec:
        for msg in ai_messages(response):
            msg.response_metadata[SPEC_KEY] = spec
    return response


class ConfigurableModelMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(
        self, factory: ModelFactory, default_spec: str | None = None, *, pinned: str | None = None
    ) -> None:
        super().__init__()
        self._factory = factory
        self._default_spec = default_spec
        self._pinned = pinned
        self._cache: dict[str, BaseChatModel] = {}

    @property
    def name(self) -> str:
        # one name per pinned spec: a subagent's stack may hold only one instance anyway
        return "ConfigurableModelMiddleware" + (f"[{self._pinned}]" if self._pinned else "")

    def effective_spec(self, ctx: Any) -> str | None:
        return self._pinned or getattr(ctx, "model_spec", None) or self._default_spec

    def model_for(self, request: ModelRequest) -> tuple[BaseChatModel | None, str | None]:
        """The model this call should use (None: the graph's own) and its spec."""
        ctx = getattr(request.runtime, "context", None)
        spec = self.effective_spec(ctx)
        params = context_params(ctx)
        if not spec or (spec == self._default_spec and not params):
            return None, spec  # the graph's own model is this spec
        key = f"{spec}|{json.dumps(params, sort_keys=True, default=str)}"
        if key not in self._cache:
            self._cache[key] = self._factory(spec, params)
        return self._cache[key], spec

    def _prepare(
        self, request: ModelRequest, *, share_loop: bool = False
    ) -> tuple[ModelRequest, str | None, StreamedToolCalls]:
        model, spec = self.model_for(request)
        watched, streamed = watch(model if model is not None else request.model, share_loop=share_loop)
        return request.override(model=watched), spec, streamed

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        call, spec, streamed = self._prepare(request)
        response = ensure_complete(handler(call), streamed, spec, request.messages)
        return tag_response(response, spec)  # type: ignore[no-any-return]

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        call, spec, streamed = self._prepare(request, share_loop=True)
        response = ensure_complete(await handler(call), streamed, spec, request.messages)
        return tag_response(response, spec)  # type: ignore[no-any-return]
