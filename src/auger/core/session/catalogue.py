"""The catalogue a front end shows (`/help`, `/skills`, `/agents`, `/memory`, `/tools`, `/mcp`),
read where the agent runs: its skills, subagents, memory files, the tools its graph offers now
and its MCP servers' status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.core.catalog.memory import list_memory_files
from auger.core.catalog.skills import list_skills
from auger.core.catalog.subagents import list_subagents
from auger.core.operations import Catalogue, McpServerInfo, MemoryFileInfo, SkillInfo, SubagentInfo

if TYPE_CHECKING:
    from auger.core.runtime import Runtime

GENERAL_PURPOSE = SubagentInfo("general-purpose", "Any task, with the main agent's tools", "built-in")


def catalogue(runtime: Runtime) -> Catalogue:
    from auger.core.agent.graph import agent_tool_names

    settings = runtime.settings
    agents = list_subagents(settings)
    subagents = [GENERAL_PURPOSE]
    subagents += [SubagentInfo(a.name, a.description, a.source, a.model) for a in agents.agents]
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
    return Catalogue(
        skills=[SkillInfo(s.name, s.description, s.source) for s in list_skills(settings)],
        subagents=subagents,
        memory=[
            MemoryFileInfo(m.scope, str(m.path), m.exists)
            for m in list_memory_files(settings, include_missing=True)
        ],
        tools=agent_tool_names(runtime.graph, runtime.mcp),
        mcp=mcp,
    )
