"""The small core APIs the TUI reads besides the Session: skills, subagents, memory files, MCP
status, tools and the thread store. Each is imported lazily, and a missing one degrades to an
empty answer rather than an error (front ends must not break while a core area is absent)."""

from __future__ import annotations

import importlib
import logging
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.core.threads import ThreadStore
    from auger.tui.app import AugerApp

log = logging.getLogger("auger.tui")
SKILL_TTL = 5.0


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# -- skills ----------------------------------------------------------------------------------
_skill_cache: dict[int, tuple[float, list[tuple[str, str]]]] = {}


def skills(app: AugerApp) -> list[tuple[str, str]]:
    """(name, description) of every skill, cached for a few seconds (read on each keystroke)."""
    key = id(app)
    hit = _skill_cache.get(key)
    if hit is not None and time.monotonic() - hit[0] < SKILL_TTL:
        return hit[1]
    module = _module("auger.core.skills")
    found: list[tuple[str, str]] = []
    if module is not None and hasattr(module, "list_skills"):
        try:
            found = [(s.name, s.description) for s in module.list_skills(app.settings)]
        except Exception:
            log.exception("listing skills failed")
    _skill_cache[key] = (time.monotonic(), found)
    return found


def skill_names(app: AugerApp) -> list[str]:
    return [name for name, _ in skills(app)]


def skill_details(app: AugerApp) -> list[Any]:
    module = _module("auger.core.skills")
    if module is None or not hasattr(module, "list_skills"):
        return []
    return list(module.list_skills(app.settings))


# -- subagents, memory -----------------------------------------------------------------------
def subagents(app: AugerApp) -> list[Any]:
    """The subagent definitions (built-in, user, project) plus the general-purpose one."""
    module = _module("auger.core.subagents")
    if module is None or not hasattr(module, "list_subagents"):
        return []
    catalog = module.list_subagents(app.settings)
    return [*catalog.agents, *getattr(catalog, "async_agents", [])]


def memory_files(app: AugerApp) -> list[Any]:
    module = _module("auger.core.memory")
    if module is None or not hasattr(module, "list_memory_files"):
        return []
    return list(module.list_memory_files(app.settings, include_missing=True))


# -- MCP, tools ------------------------------------------------------------------------------
def mcp_status(app: AugerApp) -> list[dict[str, Any]] | None:
    """Live status of the session's MCP servers; None when MCP is not running."""
    manager = getattr(app.session, "mcp", None)
    return manager.status() if manager is not None else None


async def mcp_action(app: AugerApp, action: str, name: str) -> str:
    """`/mcp restart NAME` (a crashed or hung server) and `/mcp trust` (approve this project's
    `.mcp.json`, remembered per project, then start its servers)."""
    manager = getattr(app.session, "mcp", None)
    if manager is None:
        return "MCP is not running (no servers configured, or --no-mcp)."
    if action == "trust":
        from auger.core.mcp_config import TrustStore

        await manager.trust_project(TrustStore(app.settings.home))
        return "Trusted this project's MCP servers (remembered until its .mcp.json changes)."
    names = [s["name"] for s in manager.status()]
    if name not in names:
        return f"No MCP server named {name!r}. Servers: {', '.join(names) or 'none'}."
    await manager.restart(name)
    return f"Restarted MCP server {name!r}."


def tool_names(app: AugerApp) -> list[str]:
    """Tools the agent can call (built-in + MCP), via the core's helper."""
    if app.session is None:
        return []
    from auger.core.agent import agent_tool_names

    return agent_tool_names(app.session)


# -- threads ---------------------------------------------------------------------------------
def thread_store(app: AugerApp) -> ThreadStore:
    """The session's thread store, or one opened on the database (stdlib only: cheap)."""
    store = getattr(app.session, "threads", None)
    if store is not None:
        return store  # type: ignore[no-any-return]
    if app._thread_store is None:
        from auger.core.threads import open_store

        app._thread_store = open_store(app.settings)
    return app._thread_store
