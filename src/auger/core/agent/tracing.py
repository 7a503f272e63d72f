"""LangSmith's bookkeeping around each middleware hook, skipped while nobody traces.

langchain wraps every middleware's `wrap_model_call` / `wrap_tool_call` in langsmith's `traceable`
(`langchain.agents.factory`, when the agent is built). With tracing off, each wrapped call still
sets up a run that is never sent — ~230 Python calls: the tracing context read and set twice,
the parent run looked for in langchain's config, the run ended —, and sends that setup and end
to a worker thread and awaits them (plus a task per call): two thread hops per layer, ~17 layers
around each model or tool call.

* `plain_hooks_when_untraced()` replaces the `traceable` langchain's factory looks up with one
  whose wrapper calls the hook itself when the call would not be traced — langsmith's own test,
  `tracing_is_enabled()` (its context, a run in progress, `LANGSMITH_TRACING`), or a LangChain
  tracer among the run's callbacks (which langsmith takes as a parent run) — and langsmith's
  wrapper otherwise, so traces are unchanged. Untraced, langsmith's wrapper only awaits the hook
  in the caller's context (auger's override below is installed), so nothing else changes.
* `inline_when_untraced()` installs langsmith's documented runtime override
  (`set_runtime_overrides(aio_to_thread=...)`, the hook it offers runtimes such as Temporal)
  that runs that bookkeeping in place when tracing is off for the call, and falls back to
  langsmith's own thread hop when tracing is on. An override someone else installed is left
  alone. It still serves `traceable` uses elsewhere (and a hook whose tracing was in doubt).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

# loaded with the agent (graph.py imports this module as it builds one), never at startup
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers.langchain import LangChainTracer
from langsmith.utils import tracing_is_enabled


async def _inline(
    default: Callable[..., Awaitable[Any]],
    ctx: contextvars.Context,
    func: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> Any:
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


def _traced() -> bool:
    """Whether langsmith's `traceable` would trace a hook called now (with no arguments of its own)."""
    if tracing_is_enabled():
        return True
    config = var_child_runnable_config.get()
    callbacks = config.get("callbacks") if config else None
    handlers = getattr(callbacks, "handlers", callbacks)  # a callback manager's, or a list
    return isinstance(handlers, list) and any(isinstance(h, LangChainTracer) for h in handlers)


def _traceable_when_traced(**kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """langsmith's `traceable(**kwargs)` for a middleware hook: the hook itself when untraced."""
    from langsmith import traceable

    def decorate(hook: Callable[..., Any]) -> Callable[..., Any]:
        traced = traceable(**kwargs)(hook)
        if inspect.iscoroutinefunction(hook):

            async def async_layer(*args: Any, **kw: Any) -> Any:
                return await (traced if _traced() else hook)(*args, **kw)

            return functools.wraps(hook)(async_layer)
        if inspect.isgeneratorfunction(hook) or inspect.isasyncgenfunction(hook):
            return traced  # not a langchain hook: langsmith's own wrapper

        def layer(*args: Any, **kw: Any) -> Any:
            return (traced if _traced() else hook)(*args, **kw)

        return functools.wraps(hook)(layer)

    return decorate


def plain_hooks_when_untraced() -> None:
    """Install `_traceable_when_traced` where langchain's agent factory looks `traceable` up."""
    from langchain.agents import factory
    from langsmith import traceable

    if getattr(factory, "traceable", None) is traceable:  # else renamed, or already replaced
        setattr(factory, "traceable", _traceable_when_traced)  # noqa: B010 (typed as an overload)
