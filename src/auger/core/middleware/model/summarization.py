"""AugerSummarizationMiddleware: automatic compaction with the model in use now.

deepagents builds its SummarizationMiddleware from the graph's default model, so after `/model`
the conversation would still be summarised by — and compacted at 85% of the window of — the
thread's first model (which may not even be reachable any more). This middleware takes the
SDK's slot by name ("SummarizationMiddleware", in the main agent and the general-purpose
subagent) and keeps one deepagents summarization middleware per model: each call asks
ConfigurableModelMiddleware which model the call uses (same spec, params and cache as the call
itself) and hands the call to that model's instance, built with deepagents' own defaults for it
(its summaries run the PreCompact hooks first: `auger.core.middleware.model.pre_compact`).
The `_summarization_event` state is shared by all of them, so a compaction made under one model
stands under the next; `/compact` (auger.core.session.compact) uses the current model the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from deepagents.middleware.summarization import SummarizationState
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel

from auger.core.middleware.model.configurable_model import ConfigurableModelMiddleware
from auger.core.middleware.model.pre_compact import summarization
from auger.core.middleware.prompt.compact_prompt import CompactPromptMiddleware


class AugerSummarizationMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    state_schema = SummarizationState

    def __init__(
        self,
        default_model: BaseChatModel,
        backend: Any,
        switch: ConfigurableModelMiddleware,
        compact: CompactPromptMiddleware | None = None,
    ) -> None:
        super().__init__()
        self._backend = backend
        self._switch = switch
        self._compact = compact
        self._default = summarization(default_model, backend)
        self._by_model: dict[int, tuple[BaseChatModel, Any]] = {}  # id -> (model, its middleware)

    @property
    def name(self) -> str:
        return "SummarizationMiddleware"  # replaces the SDK's in its slot

    def _route(self, request: ModelRequest) -> tuple[Any, ModelRequest]:
        """The summarization middleware of the model this call uses, and `request` with that
        model's prompt profile (6b), so the size the summarization counts is the size sent: a
        small window gets the compact profile's."""
        model, _ = self._switch.model_for(request)
        summarizer = self._default  # for the graph's own model (None)
        if model is not None:  # models are cached by the switch: one entry per model
            if id(model) not in self._by_model:
                self._by_model[id(model)] = (model, summarization(model, self._backend))
            summarizer = self._by_model[id(model)][1]
        if self._compact is not None:
            request = self._compact.compacted(request, model if model is not None else request.model)
        return summarizer, request

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        summarizer, request = self._route(request)
        return summarizer.wrap_model_call(request, handler)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        summarizer, request = self._route(request)
        return await summarizer.awrap_model_call(request, handler)
