"""LangSmith's bookkeeping around each middleware hook, kept on the event loop while nobody traces.

langchain wraps every middleware's `wrap_model_call` / `wrap_tool_call` in langsmith's `traceable`.
With tracing off, each wrapped call still sends its run setup and its run end to a worker thread
and awaits them (plus a task per call): two thread hops per layer, 25 layers around a step.
`inline_when_untraced()` installs langsmith's documented runtime override (`set_runtime_overrides(
aio_to_thread=...)`, the hook it offers runtimes such as Temporal) that runs that bookkeeping in
place when tracing is off for the call — it is a few dictionary operations then — and falls back
to langsmith's own thread hop when tracing is on (`LANGSMITH_TRACING=true`), so traces are
unchanged. An override someone else installed is left alone.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any


async def _inline(
    default: Callable[..., Awaitable[Any]],
    ctx: contextvars.Context,
    func: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> Any:
    from langsmith.utils import tracing_is_enabled

    if tracing_is_enabled():
        return await default(ctx, func, *args, **kwargs)
    return ctx.run(func, *args, **kwargs)


def inline_when_untraced() -> None:
    try:  # langsmith 0.15 (the tested range in pyproject); a later API change only costs the speed-up
        from langsmith import set_runtime_overrides
        from langsmith._runtime_overrides import get_runtime_overrides
    except ImportError:
        return
    if get_runtime_overrides().aio_to_thread is None:
        set_runtime_overrides(aio_to_thread=_inline)
