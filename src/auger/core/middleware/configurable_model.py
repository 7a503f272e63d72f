"""ConfigurableModelMiddleware: the model for each call comes from the run context.

The Session puts `model_spec` (and params) in `runtime.context`; this middleware swaps the
request's model before the call, so `/model` takes effect on the next turn of the same thread
without rebuilding the graph. Built models are cached per (spec, params).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel

ModelFactory = Callable[[str, dict[str, Any]], BaseChatModel]


class ConfigurableModelMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, factory: ModelFactory, default_spec: str | None = None) -> None:
        super().__init__()
        self._factory = factory
        self._default_spec = default_spec
        self._cache: dict[str, BaseChatModel] = {}

    def _model_for(self, request: ModelRequest) -> BaseChatModel | None:
        ctx = getattr(request.runtime, "context", None)
        spec = getattr(ctx, "model_spec", None)
        params: dict[str, Any] = dict(getattr(ctx, "model_params", None) or {})
        if not spec or (spec == self._default_spec and not params):
            return None
        key = f"{spec}|{json.dumps(params, sort_keys=True, default=str)}"
        if key not in self._cache:
            self._cache[key] = self._factory(spec, params)
        return self._cache[key]

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        model = self._model_for(request)
        return handler(request.override(model=model) if model is not None else request)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        model = self._model_for(request)
        return await handler(request.override(model=model) if model is not None else request)
