"""Runs of auger's light middlewares as ONE layer around each model call and each tool call.

langchain wraps every middleware's `wrap_model_call` / `wrap_tool_call` in langsmith's `traceable`
and composes them one closure per layer: with tracing off each layer still sets up and ends a run
(a context copy, a parent-run lookup, a `tracing_context`), ~30-50 µs, and auger's main agent had
13 model-call and 8 tool-call layers of its own, most of which only patch the request a little.
`layered()` replaces each run of two or more consecutive middlewares that have no graph-node hooks
(`before_*` / `after_*`) and do not take one of deepagents' slots by name with a `Layers`: one
middleware that calls its members' hooks in the same order, nested the same way, with the same
results — inner members' `ExtendedModelResponse` commands collected inner-first, then outer, as
langchain collects them (one `Command` whose update lists their writes in that order) — and that
offers their tools and merges their state schemas (later members win a shared key, as in
langchain). A trace then shows one span for the run (named after its first and last members)
instead of one per member. The members stay what they are: the same instances serve the main
agent and the subagents.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, get_type_hints

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse
from langchain_core.messages import AIMessage
from langgraph.types import Command
from typing_extensions import TypedDict

DEFAULT_STATE: Any = AgentMiddleware.state_schema  # type: ignore[misc]  # no state of its own
NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
# names deepagents matches to put a middleware in (or keep it out of) one of its own slots
SLOT_NAMES = frozenset(
    {
        "SummarizationMiddleware",
        "SkillsMiddleware",
        "MemoryMiddleware",
        "UnsupportedContentMiddleware",
        "FilesystemMiddleware",
        "SubAgentMiddleware",
        "PatchToolCallsMiddleware",
        "AnthropicPromptCachingMiddleware",
        "HumanInTheLoopMiddleware",
    }
)


def _overrides(middleware: Any, hook: str) -> bool:
    cls = type(middleware)
    return bool(
        getattr(cls, hook) is not getattr(AgentMiddleware, hook)
        or getattr(cls, f"a{hook}") is not getattr(AgentMiddleware, f"a{hook}")
    )


def mergeable(middleware: Any) -> bool:
    """auger's own middleware without node hooks that takes no deepagents slot."""
    return (
        type(middleware).__module__.startswith("auger.")
        and middleware.name not in SLOT_NAMES
        and not any(_overrides(middleware, h) for h in NODE_HOOKS)
    )


def split_response(result: Any) -> tuple[Any, list[Command[Any]]]:
    """A hook's result as langchain normalises it between layers: the response and its command."""
    if isinstance(result, ExtendedModelResponse):
        return result.model_response, [result.command] if result.command is not None else []
    if isinstance(result, AIMessage):
        return ModelResponse(result=[result], structured_response=None), []
    return result, []


def with_commands(response: Any, commands: list[Command[Any]]) -> Any:
    """`response` with `commands` (their writes in order as one `Command`, if more than one)."""
    if not commands:
        return response
    if len(commands) == 1:
        return ExtendedModelResponse(model_response=response, command=commands[0])
    writes: list[tuple[str, Any]] = []
    for command in commands:
        update = command.update
        writes.extend(update.items() if isinstance(update, dict) else update or ())
    return ExtendedModelResponse(model_response=response, command=Command(update=writes))


def _merged_schema(members: Sequence[Any]) -> type:
    schemas = [m.state_schema for m in members if m.state_schema is not DEFAULT_STATE]
    if not schemas:
        return DEFAULT_STATE  # type: ignore[no-any-return]
    fields = {k: v for schema in schemas for k, v in get_type_hints(schema, include_extras=True).items()}
    return TypedDict("LayersState", fields)  # type: ignore[operator,no-any-return]


class Layers(AgentMiddleware):  # type: ignore[type-arg]
    """`members` (in order, outermost first) as one middleware; see the module docstring."""

    def __init__(self, members: Sequence[Any]) -> None:
        super().__init__()
        self.members = tuple(members)
        self._model = [m for m in self.members if _overrides(m, "wrap_model_call")]
        self._tool = [m for m in self.members if _overrides(m, "wrap_tool_call")]
        self.tools = [t for m in self.members for t in getattr(m, "tools", [])]
        self.state_schema = _merged_schema(self.members)  # type: ignore[assignment]

    @property
    def name(self) -> str:
        return f"Layers[{self.members[0].name}..{self.members[-1].name}]"

    # model calls: member i gets a handler running members i+1.. then `handler`
    def _model_call(
        self, i: int, request: ModelRequest, handler: Callable[..., Any]
    ) -> tuple[Any, list[Any]]:
        if i == len(self._model):
            return split_response(handler(request))
        inner: list[Command[Any]] = []

        def call_inner(req: ModelRequest) -> Any:
            response, commands = self._model_call(i + 1, req, handler)
            inner[:] = commands  # the last call's (a member may call again: a retry)
            return response

        response, own = split_response(self._model[i].wrap_model_call(request, call_inner))
        return response, [*inner, *own]

    async def _amodel_call(
        self, i: int, request: ModelRequest, handler: Callable[..., Awaitable[Any]]
    ) -> tuple[Any, list[Any]]:
        if i == len(self._model):
            return split_response(await handler(request))
        inner: list[Command[Any]] = []

        async def call_inner(req: ModelRequest) -> Any:
            response, commands = await self._amodel_call(i + 1, req, handler)
            inner[:] = commands
            return response

        response, own = split_response(await self._model[i].awrap_model_call(request, call_inner))
        return response, [*inner, *own]

    def _tool_call(self, i: int, request: Any, execute: Callable[[Any], Any]) -> Any:
        if i == len(self._tool):
            return execute(request)
        return self._tool[i].wrap_tool_call(request, lambda req: self._tool_call(i + 1, req, execute))

    async def _atool_call(self, i: int, request: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
        if i == len(self._tool):
            return await execute(request)
        return await self._tool[i].awrap_tool_call(request, lambda req: self._atool_call(i + 1, req, execute))


class _ModelLayers(Layers):
    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return with_commands(*self._model_call(0, request, handler))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return with_commands(*await self._amodel_call(0, request, handler))


class _ToolLayers(Layers):
    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._tool_call(0, request, handler)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await self._atool_call(0, request, handler)


class _BothLayers(_ModelLayers, _ToolLayers):
    pass


def _layers(members: list[Any]) -> Any:
    model = any(_overrides(m, "wrap_model_call") for m in members)
    tool = any(_overrides(m, "wrap_tool_call") for m in members)
    cls = _BothLayers if model and tool else _ModelLayers if model else _ToolLayers if tool else Layers
    return cls(members)


def _node_only(middleware: Any) -> bool:
    """Only graph-node hooks: no wrapper layer, no tools, no state of its own. Where it stands among
    wrapper layers changes nothing, so it does not break a run (it follows the run instead)."""
    return (
        middleware.name not in SLOT_NAMES
        and not any(_overrides(middleware, h) for h in ("wrap_model_call", "wrap_tool_call"))
        and not getattr(middleware, "tools", None)
        and middleware.state_schema is DEFAULT_STATE
    )


def layered(middleware: Sequence[Any]) -> list[Any]:
    """`middleware` with each run of ≥ 2 consecutive `mergeable` ones as one `Layers` (a node-only
    middleware inside a run moves to just after it, keeping its order among node hooks)."""
    out: list[Any] = []
    run: list[Any] = []
    held: list[Any] = []
    for m in [*middleware, None]:
        if m is not None and mergeable(m):
            run.append(m)
            continue
        if m is not None and run and _node_only(m):
            held.append(m)
            continue
        out.extend([_layers(run)] if len(run) > 1 else run)
        out.extend(held)
        run, held = [], []
        if m is not None:
            out.append(m)
    return out
