"""PreCompact hooks before deepagents' automatic summaries, through the SDK's public route.

`create_summarization_middleware(model, backend, summarizer=...)` takes a chat model that writes
the summaries ("Pass ... a BaseChatModel instance to summarize with a different chat model; it is
prompted with summary_prompt"). `PreCompactModel` is that model: it runs the PreCompact hooks
(trigger "auto") of the graph step's run context (`AugerContext.hooks`), their notices go to the
custom stream, then it asks the model it wraps. The prompt, trimming and retries stay the SDK's.
`summarization(model, backend)` is what auger puts in the SDK's slot (see
`auger.core.middleware.model.summarization` and the subagents in `auger.core.agent.graph`).
"""

from __future__ import annotations

from typing import Any

from deepagents.middleware.summarization import create_summarization_middleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from auger.core.agent.context import AugerContext
from auger.core.hooks.runner import HookResult, HookRunner
from auger.core.middleware.model.token_count import ApproximateTokens


def summarization(model: BaseChatModel, backend: Any) -> Any:
    """deepagents' summarization middleware for `model`, its summaries written after PreCompact,
    its size estimate counting each message once (`auger.core.middleware.model.token_count`)."""
    counter = ApproximateTokens.for_model(model)
    middleware = create_summarization_middleware(
        model, backend, summarizer=PreCompactModel(inner=model), token_counter=counter
    )
    # langchain searches the cut-off with the unscaled count when it picks the counter itself;
    # so does this one (left as it is if the SDK's helper changes shape)
    helper = getattr(middleware, "_lc_helper", None)
    if getattr(helper, "_partial_token_counter", None) is counter:
        helper._partial_token_counter = counter.unscaled  # type: ignore[union-attr]
    return middleware


def _runner() -> tuple[HookRunner, dict[str, Any]] | None:
    try:
        from langgraph.runtime import get_runtime

        ctx = get_runtime().context
    except Exception:  # outside a graph step: no run, no hooks
        return None
    if isinstance(ctx, AugerContext) and isinstance(ctx.hooks, HookRunner) and ctx.hooks.has("PreCompact"):
        return ctx.hooks, {"session_id": ctx.thread_id or "", "trigger": "auto", "custom_instructions": ""}
    return None


def _notify(result: HookResult) -> None:
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
        for message, level in result.notices:
            writer({"auger_event": "notice", "message": message, "level": level})
    except Exception:
        return  # outside a graph step: nothing to tell


class PreCompactModel(BaseChatModel):
    inner: BaseChatModel

    @property
    def _llm_type(self) -> str:
        return f"pre-compact:{self.inner._llm_type}"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if (found := _runner()) is not None:
            _notify(found[0].run_sync("PreCompact", found[1], ["auto"]))
        return self.inner._generate(messages, stop=stop, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if (found := _runner()) is not None:
            _notify(await found[0].run("PreCompact", found[1], ["auto"]))
        return await self.inner._agenerate(messages, stop=stop, **kwargs)
