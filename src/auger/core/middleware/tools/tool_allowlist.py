"""ToolAllowListMiddleware: a subagent defined with `tools: [...]` sees and runs only those tools.

deepagents gives every declarative subagent the file tools (and the shell) from its
FilesystemMiddleware whatever the spec says; this middleware removes every other tool from each
model request and refuses, with a message the model can read, a call to a tool outside the list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.messages import ToolMessage

from auger.core.middleware.base import ToolFilter
from auger.core.middleware.tools.permissions import error_message


class ToolAllowListMiddleware(ToolFilter):
    def __init__(self, allowed: Iterable[str]) -> None:
        super().__init__()
        self.allowed = frozenset(allowed)

    def offered(self, request: Any, name: str, tool: Any) -> bool:
        return name in self.allowed

    def refusal(self, request: Any) -> ToolMessage:
        name = request.tool_call["name"]
        allowed = ", ".join(sorted(self.allowed)) or "none"
        text = f"Error: the tool {name!r} is not available to this agent (allowed: {allowed})."
        return error_message(request.tool_call, text)
