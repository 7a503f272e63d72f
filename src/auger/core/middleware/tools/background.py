"""BackgroundMiddleware: `execute(command, background=true)`, `execute_output(id)`, `execute_stop(id)`.

The model sees a `background` flag on `execute`. A call with it set passed every wrapper an
`execute` passes (approvals, hooks, permission rules, rewind's snapshot: it is a shell command
like any other), so this middleware is the innermost: it starts the command in the session's
`auger.core.backends.jobs.Jobs` (the run context's `jobs`) and answers at once with its id.
`execute_output` returns what it printed since the last read and whether it still runs;
`execute_stop` ends it and everything it started. Without `jobs` (a run with no session, e.g.
on a LangGraph server) or a backend that cannot start one, the call says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.tools import ToolRuntime, tool
from langchain_core.messages import ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from auger.core.backends.jobs import spawner

FLAG = {
    "type": "boolean",
    "description": "Start it and return at once with an id (servers, watchers); read it with execute_output.",
}
NO_JOBS = "Background commands are not available here (no session to own them)."


def _jobs(runtime: Any) -> Any:
    return getattr(getattr(runtime, "context", None), "jobs", None)


def _answer(runtime: Any, act: Callable[[Any], str]) -> str:
    """`act` on the session's jobs; an unknown id is an error the model reads."""
    jobs = _jobs(runtime)
    if jobs is None:
        return NO_JOBS
    try:
        return act(jobs)
    except KeyError as exc:
        return f"Error: {exc.args[0]}"


@tool("execute_output")
def execute_output(id: str, runtime: ToolRuntime) -> str:  # type: ignore[type-arg]
    """Output of background command `id` since the last read, and whether it still runs."""
    return _answer(runtime, lambda jobs: str(jobs.read(id)))


@tool("execute_stop")
def execute_stop(id: str, runtime: ToolRuntime) -> str:  # type: ignore[type-arg]
    """Stop background command `id` and everything it started."""
    return _answer(runtime, lambda jobs: str(jobs.stop(id)))


def _with_flag(tools: list[Any]) -> list[Any]:
    """The tools, `execute` with the `background` flag in its schema."""
    out: list[Any] = []
    for t in tools:
        schema = convert_to_openai_tool(t) if _name(t) == "execute" else None
        if schema is None:
            out.append(t)
            continue
        function = {**schema["function"]}
        parameters = {**function.get("parameters", {})}
        properties = parameters.get("properties", {})
        bare = "description" not in properties.get("command", {})  # the compact profile's schema
        parameters["properties"] = {**properties, "background": {"type": "boolean"} if bare else FLAG}
        out.append({**schema, "function": {**function, "parameters": parameters}})
    return out


def _name(t: Any) -> str | None:
    return t.get("function", {}).get("name") if isinstance(t, dict) else getattr(t, "name", None)


def _background(request: Any) -> bool:
    return request.tool_call["args"].get("background") in (True, "true")


class BackgroundMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, backend: Any) -> None:
        super().__init__()
        self.tools = [execute_output, execute_stop]
        self._spawn = spawner(backend)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(request.override(tools=_with_flag(list(request.tools))) if self._spawn else request)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await handler(
            request.override(tools=_with_flag(list(request.tools))) if self._spawn else request
        )

    def _start(self, request: Any) -> ToolMessage:
        call = request.tool_call
        command = str(call["args"].get("command") or "")
        jobs = _jobs(request.runtime)
        text = NO_JOBS
        if jobs is not None and self._spawn is not None and command.strip():
            try:
                job = jobs.start(self._spawn, command)
                text = f"Started {job.id} in the background: {command}\n"
                text += f"Read its output with execute_output(id={job.id!r})."
            except (OSError, RuntimeError) as exc:
                text = f"Error: could not start it in the background: {exc}"
        elif not command.strip():
            text = "Error: the command is empty."
        return ToolMessage(text, tool_call_id=str(call.get("id") or ""), name="execute")

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if request.tool_call.get("name") != "execute":
            return handler(request)
        if _background(request):
            return self._start(request)
        return handler(_without_flag(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if request.tool_call.get("name") != "execute":
            return await handler(request)
        if _background(request):
            return await asyncio.to_thread(self._start, request)  # Popen forks: off the event loop
        return await handler(_without_flag(request))


def _without_flag(request: Any) -> Any:
    args = request.tool_call.get("args") or {}
    if "background" not in args:
        return request
    rest = {k: v for k, v in args.items() if k != "background"}
    return request.override(tool_call={**request.tool_call, "args": rest})
