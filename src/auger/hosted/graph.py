"""The graph a LangGraph Server hosts as graph id `auger` (`langgraph.json` at the repo root).

    langgraph dev --no-browser            # in a project; AUGER_HOME / AUGER_WORKSPACE as usual

`make_graph()` builds auger's agent with `create_cli_agent` — the same middleware, skills,
memory, subagents and tools as `auger` itself — once per server process:

* the project is the folder named by `AUGER_WORKSPACE` (default: the server's working
  directory); settings come from `AUGER_HOME` and that project as usual (`load_settings`), the
  model from config (`AUGER_MODEL` too);
* the server brings its own checkpointer and store (LangGraph Server persists threads), so the
  graph is compiled without one and auger's thread store is not used;
* the config's MCP servers start with the first graph load and live with the process;
* approvals are LangGraph interrupts, one per tool call that asks, in human-in-the-loop's terms
  (`auger.core.middleware.tools.approval_gate`):
  `{"action_requests": [...], "review_configs": [...]}`; a client resumes the run with
  `Command(resume={"decisions": [{"type": "approve" | "reject", "message"?}]})`;
* a run's `context` (`{"mode": "auto-edit", "model_spec": "...", "always_allow": [...]}`) is
  auger's run context: every field a client cannot send (the permission engine, the hooks) is
  filled from this server's settings (`HostedContext`), so `[permissions]` rules and hooks hold
  for every run, resumed ones included.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auger.core.agent.context import AugerContext

WORKSPACE_ENV = "AUGER_WORKSPACE"


def hosted_context(permissions: Any, hooks: Any) -> type[AugerContext]:
    """auger's run context with this server's permission engine and hook runner as defaults:
    LangGraph builds it from each run's JSON `context`, which cannot carry them."""

    @dataclass
    class HostedContext(AugerContext):
        # deepagents' reference to the agent that started this run as its async subagent (it
        # sends it in `configurable`, which the server passes on as context)
        deepagents_parent: dict[str, str] | None = None

        def __post_init__(self) -> None:
            if self.permissions is None:
                self.permissions = permissions
            if self.hooks is None:
                self.hooks = hooks
            self.always_allow = frozenset(self.always_allow)  # JSON gives a list

    return HostedContext


_built: tuple[Any, Any] | None = None  # the graph and the McpManager it calls (None: no MCP server)
_lock = threading.Lock()


async def make_graph() -> Any:
    """auger's compiled agent for this server process, built on the first request in a worker
    thread (reading settings, skills and memory is file I/O, which the server's event loop must
    not wait on; `langgraph dev` raises on a blocking call). The config's MCP servers are started
    then, on the server's event loop, and live as long as the process."""
    graph, mcp, first = await asyncio.to_thread(_build_once)
    if first and mcp is not None:
        await mcp.start(wait=True)  # their tools are there for the first model call
    return graph


def _build_once() -> tuple[Any, Any, bool]:
    """(graph, MCP manager, whether this call built them)."""
    global _built
    with _lock:  # two first requests at once build it once
        if _built is not None:
            return *_built, False
        _built = build_graph()
        return *_built, True


def build_graph() -> tuple[Any, Any]:
    """The agent from `AUGER_HOME`, the workspace and its config (see the module docstring), and
    the MCP manager it calls (not started)."""
    from auger.core.agent.graph import create_cli_agent
    from auger.core.hooks.runner import HookRunner
    from auger.core.mcp.manager import mcp_manager
    from auger.core.safety.permissions import PermissionEngine
    from auger.core.safety.redaction import configure
    from auger.settings import load_settings

    workspace = os.environ.get(WORKSPACE_ENV)  # else the working directory
    settings = load_settings(cwd=Path(workspace).expanduser() if workspace else None)
    configure(settings)
    context = hosted_context(PermissionEngine.from_settings(settings), HookRunner.from_settings(settings))
    mcp = mcp_manager(settings)  # the user's and trusted project servers, as `auger` starts them
    return create_cli_agent(settings, context_schema=context, mcp=mcp), mcp
