"""create_cli_agent(): the deepagents graph auger runs.

The middleware order lives in ONE list, `_middleware()` below. Read it top to bottom as the
order hooks run before a model call (wrap_model_call: outermost first):

1. ConfigurableModelMiddleware — pick the model for this call from the run context (`/model`).
2. TurnLimitMiddleware         — cap model calls per user prompt (`max_turns`).
3. TodoListMiddleware          — `write_todos` (deepagents 0.7 does not add it by default).
4. McpToolsMiddleware          — (when MCP servers are configured) offers the tools of the servers
                                 connected now and runs their calls, asking approval if needed.

deepagents then appends its own tail: skills, prompt caching, memory, human-in-the-loop
(`interrupt_on`, gated per call by `needs_approval` from the run context), unsupported content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from auger.core.context import GATED_TOOLS, AugerContext, needs_approval
from auger.core.models import build_chat_model, parse_spec
from auger.core.prompt import SYSTEM_PROMPT
from auger.errors import ModelError

if TYPE_CHECKING:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool
    from langgraph.types import Checkpointer

    from auger.settings import Settings


def model_factory(settings: Settings) -> Any:
    """(spec, params) -> chat model, resolving providers from settings."""

    def build(spec: str, params: dict[str, Any]) -> BaseChatModel:
        return build_chat_model(parse_spec(spec, settings.providers), **params)

    return build


def _middleware(settings: Settings, default_spec: str | None) -> list[AgentMiddleware[Any, Any, Any]]:
    from langchain.agents.middleware import TodoListMiddleware

    from auger.core.middleware.configurable_model import ConfigurableModelMiddleware
    from auger.core.middleware.turn_limit import TurnLimitMiddleware

    return [
        ConfigurableModelMiddleware(model_factory(settings), default_spec),
        TurnLimitMiddleware(),
        TodoListMiddleware(),
    ]


def _when_gated(request: Any) -> bool:
    ctx = getattr(request.runtime, "context", None)
    return needs_approval(request.tool_call["name"], ctx if isinstance(ctx, AugerContext) else None)


def interrupt_config(tool_names: Sequence[str]) -> dict[str, Any]:
    """HITL config: every gated tool may interrupt; `when` decides per call from the context."""
    return {name: {"allowed_decisions": ["approve", "reject"], "when": _when_gated} for name in tool_names}


def create_cli_agent(
    settings: Settings,
    *,
    checkpointer: Checkpointer | None = None,
    model: BaseChatModel | None = None,
    tools: Sequence[BaseTool] = (),
    gated_tools: Sequence[str] = (),
    backend: Any = None,
    mcp: Any = None,
) -> Any:
    """Build the compiled agent graph for `settings`.

    `model` overrides the configured one (tests pass a scripted chat model); `tools` are extra
    tools; `gated_tools` are extra tool names that need approval like the shell does; `mcp` is an
    `McpManager` whose tools join each model call as its servers connect.
    """
    from deepagents import create_deep_agent
    from deepagents.middleware.subagents import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT

    from auger.core.backends import make_backend

    default_spec = settings.model
    if model is None:
        if not default_spec:
            raise ModelError(
                "No model configured.",
                hint="Use --model PROVIDER:MODEL or `auger config set model PROVIDER:MODEL`.",
            )
        model = build_chat_model(parse_spec(default_spec, settings.providers))
    backend = backend if backend is not None else make_backend(settings)
    middleware = _middleware(settings, default_spec)
    if mcp is not None:
        from auger.core.middleware.mcp_tools import McpToolsMiddleware

        middleware.append(McpToolsMiddleware(mcp))
    general_purpose = {
        "name": "general-purpose",
        "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
        "system_prompt": DEFAULT_SUBAGENT_PROMPT,
        "middleware": [middleware[0], middleware[1]],
    }
    return create_deep_agent(
        model=model,
        tools=list(tools),
        system_prompt=SYSTEM_PROMPT,
        middleware=middleware,
        subagents=[general_purpose],  # type: ignore[list-item]
        backend=backend,
        interrupt_on=interrupt_config([*sorted(GATED_TOOLS), *gated_tools]),
        context_schema=AugerContext,
        checkpointer=checkpointer,
    )


def agent_tool_names(session: Any) -> list[str]:
    """The tools `session`'s agent can call now: the graph's own, then connected MCP servers'."""
    node = getattr(session.graph, "nodes", {}).get("tools")
    names = list(getattr(getattr(node, "bound", None), "tools_by_name", None) or {})
    manager = getattr(session, "mcp", None)
    if manager is not None:
        names += [tool.name for tool in manager.tools(names) if tool.name not in names]
    return names
