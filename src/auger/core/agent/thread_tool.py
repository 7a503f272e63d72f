"""`get_current_thread_id`: the model can hand this conversation's thread id to an MCP tool or a
trace (as Deep Agents Code offers). Read-only; the id comes from the run's config, else the run
context (`AugerContext.thread_id`)."""

from __future__ import annotations

from typing import Any

from langchain.tools import ToolRuntime, tool

NAME = "get_current_thread_id"


@tool(NAME)
def get_current_thread_id(runtime: ToolRuntime) -> str:  # type: ignore[type-arg]
    """The id of this conversation's thread (e.g. to give an MCP tool or a trace)."""
    configurable: dict[str, Any] = (runtime.config or {}).get("configurable") or {}
    thread = configurable.get("thread_id") or getattr(runtime.context, "thread_id", None)
    return str(thread) if thread else "This run has no thread id (it is not saved as a thread)."
