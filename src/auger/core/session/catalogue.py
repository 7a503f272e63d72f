"""The catalogue a front end shows (`/help`, `/skills`, `/agents`, `/memory`, `/tools`, `/mcp`),
read where the agent runs: its skills and custom commands, subagents, memory files, the tools its
graph offers now and its MCP servers' status.

Skills and commands are listed as `/name args` resolves them (`auger.core.session.turn_input`):
the user's skills win over a command of the same name, a command over a built-in skill."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.core.catalog.commands import list_commands
from auger.core.catalog.memory import memory_files
from auger.core.catalog.skills import discover_skills
from auger.core.catalog.subagents import discover_subagents
from auger.core.operations import (
    Catalogue,
    CommandInfo,
    McpServerInfo,
    MemoryFileInfo,
    SkillInfo,
    SubagentInfo,
)

if TYPE_CHECKING:
    from auger.core.runtime import Runtime
    from auger.settings import Settings

GENERAL_PURPOSE = SubagentInfo("general-purpose", "Any task, with the main agent's tools", "built-in")


def _invocable(settings: Settings) -> tuple[list[SkillInfo], list[CommandInfo]]:
    """The skills and custom commands `/name` reaches, each name once."""
    skills = discover_skills(settings)
    own = {s.name for s in skills if s.source != "built-in"}
    commands = [c for c in list_commands(settings) if c.name not in own]
    shadowed = {c.name for c in commands}
    return (
        [SkillInfo(s.name, s.description, s.source) for s in skills if s.name not in shadowed],
        [CommandInfo(c.name, c.description, c.source, c.argument_hint) for c in commands],
    )


def catalogue(runtime: Runtime) -> Catalogue:
    from auger.core.agent.graph import agent_tool_names
    from auger.core.safety.plan_mode import PLAN_MODE

    settings = runtime.settings
    agents = discover_subagents(settings)
    subagents = [GENERAL_PURPOSE]
    subagents += [SubagentInfo(a.name, a.description, a.source, a.model) for a in agents]
    subagents += [
        SubagentInfo(str(a["name"]), str(a.get("description") or ""), "remote" if a.get("url") else "async")
        for a in agents.async_agents
    ]
    subagents += [SubagentInfo(str(a["name"]), str(a["description"]), "acp") for a in agents.acp_agents]
    mcp = None
    if runtime.mcp is not None:
        mcp = [
            McpServerInfo(
                s["name"],
                s["status"],
                list(s["tools"]),
                s.get("error"),
                [p.usage for p in runtime.mcp.prompts() if p.server == s["name"]],
            )
            for s in runtime.mcp.status()
        ]
    skills, commands = _invocable(settings)
    return Catalogue(
        skills=skills,
        subagents=subagents,
        memory=[MemoryFileInfo(m.scope, str(m.path), m.exists) for m in memory_files(settings)],
        tools=agent_tool_names(runtime.graph, runtime.mcp),
        plan_tools=agent_tool_names(runtime.graph, runtime.mcp, PLAN_MODE),
        mcp=mcp,
        commands=commands,
    )
