"""CompactPromptMiddleware: the compact prompt profile for models with a small window.

On a call whose model has a context window ≤ `auger.core.agent.prompt_compact.COMPACT_WINDOW`, the
request gets auger's compact system prompt instead of the full one, loses the todo list's long
guidance (the tool's one-line description says it) and carries the built-in tools with one-line
descriptions and bare parameter schemas; the memory middleware (12) picks its compact text by
the same test. The tools stay the same tools: only what the model reads changes, the calls run
the originals. It sits right after the todo list middleware, the last one that writes the system
prompt before skills and memory. Every call (either profile) has deepagents' shell-paths note as
one line of its host mappings.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import SystemMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from auger.core.agent.prompt import SYSTEM_PROMPT, TODOS_SYSTEM_PROMPT
from auger.core.agent.prompt_compact import (
    COMPACT_SYSTEM_PROMPT,
    COMPACT_TOOLS,
    bare_schema,
    compact_shell_paths,
    compact_task,
    is_compact,
)
from auger.core.middleware.base import RequestShaper

_REPLACED = {SYSTEM_PROMPT: COMPACT_SYSTEM_PROMPT, TODOS_SYSTEM_PROMPT: ""}


def _short(text: str, compact: bool) -> str | None:
    """The compact profile's text for a full-profile system block, "" to drop it, None to keep it
    (in the full profile only the shell-paths block is shortened)."""
    key = text.removeprefix("\n\n")
    if compact and key in _REPLACED:
        return _REPLACED[key] or ""
    return compact_shell_paths(key)


def compact_system(system: SystemMessage | None, compact: bool = True) -> SystemMessage | None:
    """The system message with the full texts swapped for their compact ones."""
    if system is None:
        return None
    blocks: list[Any] = []
    for block in system.content_blocks:
        text = block.get("text") if block.get("type") == "text" else None
        short = _short(text, compact) if isinstance(text, str) else None
        if short is None:
            blocks.append(block)
        elif short:
            blocks.append({"type": "text", "text": f"\n\n{short}" if blocks else short})
    return SystemMessage(content_blocks=blocks)


def compact_tool(tool: BaseTool) -> BaseTool:
    """`tool` as the model sees it in the compact profile (itself when auger has no short text)."""
    function = convert_to_openai_tool(tool)["function"]
    text = COMPACT_TOOLS.get(tool.name) or (compact_task(tool.description) if tool.name == "task" else None)
    if text is None:
        return tool
    schema = bare_schema(function.get("parameters", {"type": "object", "properties": {}}))
    return tool.model_copy(update={"description": text, "args_schema": schema})


class CompactPromptMiddleware(RequestShaper):
    def __init__(self) -> None:
        super().__init__()
        self._tools: dict[int, tuple[BaseTool, BaseTool]] = {}  # id(original) -> (original, compact)
        self._made: set[int] = set()  # ids of the compact copies

    def _compact(self, tool: Any) -> Any:
        if not isinstance(tool, BaseTool) or id(tool) in self._made:
            return tool
        cached = self._tools.get(id(tool))
        if cached is None or cached[0] is not tool:
            cached = self._tools[id(tool)] = (tool, compact_tool(tool))
            self._made.add(id(cached[1]))
        return cached[1]

    def compacted(self, request: ModelRequest, model: Any) -> ModelRequest:
        """`request` as the compact profile sends it when the call goes to `model` (else itself).
        The summarization middleware (0) counts this, so it compacts at the size really sent."""
        if not is_compact(model):
            return request.override(system_message=compact_system(request.system_message, compact=False))
        return request.override(
            system_message=compact_system(request.system_message),
            tools=[self._compact(tool) for tool in request.tools],
        )

    def shape(self, request: ModelRequest) -> ModelRequest:
        return self.compacted(request, request.model)
