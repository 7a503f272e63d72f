"""ContextMeter: what fills the context window, by part, for `/context`.

deepagents splices auger's middleware ahead of its tail (skills, prompt caching, memory), so this,
the last of auger's, sees the request before the skills and memory sections join the system
prompt: `Meter.parts` adds them by running those two middlewares' `modify_request` on it. Per call
it only keeps a reference to the request on the session's `Meter` (the run context's `meter`);
the sizes are counted when `/context` asks: no cost per call that grows with the thread.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse


@dataclass
class Meter:
    """One session's last model request (or only the saved messages), measured on demand."""

    request: Any = None
    tail: tuple[Any, ...] = ()  # the skills and memory middlewares, in the SDK's order
    messages: tuple[Any, ...] = ()

    @property
    def seen(self) -> bool:
        return self.request is not None

    def parts(self) -> dict[str, int]:
        """Characters per part: system prompt, skills, memory, tool schemas, messages, tool results."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        sizes, request = [_system(self.request)], self.request
        for middleware in self.tail if request is not None else ():
            request = middleware.modify_request(request)
            sizes.append(_system(request))
        skills, memory = (sizes[1] - sizes[0], sizes[2] - sizes[1]) if len(sizes) == 3 else (0, 0)
        messages = self.request.messages if self.request is not None else self.messages
        tools = self.request.tools if self.request is not None else []
        schemas = [t if isinstance(t, dict) else convert_to_openai_tool(t) for t in tools]
        results = sum(len(_text(m.content)) for m in messages if getattr(m, "type", "") == "tool")
        chat = sum(len(_text(m.content)) + _calls(m) for m in messages if getattr(m, "type", "") != "tool")
        return {
            "system prompt": sizes[0],
            "skills": skills,
            "memory (AGENTS.md)": memory,
            "tool schemas": len(json.dumps(schemas)) if schemas else 0,
            "messages": chat,
            "tool results": results,
        }


def _system(request: Any) -> int:
    system = getattr(request, "system_message", None)
    return len(_text(system.content)) if system is not None else 0


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
    return str(content)


def _calls(message: Any) -> int:
    calls = getattr(message, "tool_calls", None) or []
    return len(json.dumps([c.get("args") for c in calls])) if calls else 0


class ContextMeter(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, tail: tuple[Any, ...]) -> None:
        super().__init__()
        self.tail = tail

    def _keep(self, request: ModelRequest) -> None:
        meter = getattr(getattr(request.runtime, "context", None), "meter", None)
        if isinstance(meter, Meter):
            meter.request, meter.tail = request, self.tail

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        self._keep(request)
        return handler(request)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        self._keep(request)
        return await handler(request)
