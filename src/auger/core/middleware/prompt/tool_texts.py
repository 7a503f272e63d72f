"""ToolTextsMiddleware: a subagent reads auger's tool texts, and none about tools it lacks.

deepagents builds a subagent's file tools with its own descriptions (which repeat the system
prompt and point at folders auger has not) and its "shell paths vs. virtual paths" section, which
explains the `execute` tool, even to an agent without it (the read-only explorer). This shaper,
the innermost of a subagent's own middleware (after its tool allow-list), gives each tool auger's
description (`auger.core.agent.prompt.TOOL_DESCRIPTIONS`, as the main agent has them) and keeps
the shell-paths section, as one line of its mappings, only when `execute` is offered.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import SystemMessage
from langchain_core.tools import BaseTool

from auger.core.agent.prompt import TOOL_DESCRIPTIONS
from auger.core.agent.prompt_compact import SHELL_PATHS_HEADING, compact_shell_paths
from auger.core.middleware.base import RequestShaper, tool_name


def without_shell_paths(system: SystemMessage | None, shell: bool) -> SystemMessage | None:
    """`system` with deepagents' shell-paths section as one line (`shell`), else without it."""
    if system is None:
        return None
    blocks: list[Any] = []
    for block in system.content_blocks:
        text = block.get("text") if block.get("type") == "text" else None
        if not isinstance(text, str) or SHELL_PATHS_HEADING not in text:
            blocks.append(block)
        elif shell and (line := compact_shell_paths(text)):
            blocks.append({"type": "text", "text": f"\n\n{line}"})
    return SystemMessage(content_blocks=blocks)


class ToolTextsMiddleware(RequestShaper):
    def __init__(self) -> None:
        super().__init__()
        self._copies: dict[int, tuple[BaseTool, BaseTool]] = {}  # id(original) -> (original, retexted)

    def _retexted(self, tool: Any) -> Any:
        text = TOOL_DESCRIPTIONS.get(tool_name(tool) or "")
        if not isinstance(tool, BaseTool) or text is None or tool.description == text:
            return tool
        cached = self._copies.get(id(tool))
        if cached is None or cached[0] is not tool:
            cached = self._copies[id(tool)] = (tool, tool.model_copy(update={"description": text}))
        return cached[1]

    def shape(self, request: ModelRequest) -> ModelRequest:
        shell = "execute" in {tool_name(tool) for tool in request.tools}
        return request.override(
            tools=[self._retexted(tool) for tool in request.tools],
            system_message=without_shell_paths(request.system_message, shell),
        )
