"""PreCompact hooks: run just before deepagents summarises a conversation.

deepagents' summarization (automatic, and its `compact_conversation` tool) builds its summary in
`_create_summary` / `_acreate_summary` of a private class; auger runs the PreCompact hooks just
before, reading the hook runner from the run context of the graph step that summarises.
"""

from __future__ import annotations

from typing import Any

from auger.core.context import AugerContext
from auger.core.hooks import HookResult, HookRunner


def _precompact_runner() -> tuple[HookRunner, AugerContext] | None:
    try:
        from langgraph.runtime import get_runtime

        ctx = get_runtime().context
    except Exception:
        return None
    if isinstance(ctx, AugerContext) and isinstance(ctx.hooks, HookRunner) and ctx.hooks.has("PreCompact"):
        return ctx.hooks, ctx
    return None


def _precompact_notify(result: HookResult) -> None:
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
        for message, level in result.notices:
            writer({"auger_event": "notice", "message": message, "level": level})
    except Exception:
        return  # outside a graph step: nothing to tell


def _precompact_payload(ctx: AugerContext) -> dict[str, Any]:
    return {"session_id": ctx.thread_id or "", "trigger": "auto", "custom_instructions": ""}


def install_precompact_hook() -> None:
    """Patch deepagents' summarization once so PreCompact hooks run before each summary."""
    try:
        from deepagents.middleware import summarization
    except ImportError:
        return
    cls = getattr(summarization, "_DeepAgentsSummarizationMiddleware", None)
    if cls is None or getattr(cls, "_auger_precompact", False):
        return
    sync_summary, async_summary = cls._create_summary, cls._acreate_summary

    def _create_summary(self: Any, messages: list[Any]) -> str:
        found = _precompact_runner()
        if found is not None:
            _precompact_notify(found[0].run_sync("PreCompact", _precompact_payload(found[1]), ["auto"]))
        return sync_summary(self, messages)  # type: ignore[no-any-return]

    async def _acreate_summary(self: Any, messages: list[Any]) -> str:
        found = _precompact_runner()
        if found is not None:
            _precompact_notify(await found[0].run("PreCompact", _precompact_payload(found[1]), ["auto"]))
        return await async_summary(self, messages)  # type: ignore[no-any-return]

    cls._create_summary = _create_summary
    cls._acreate_summary = _acreate_summary
    cls._auger_precompact = True
