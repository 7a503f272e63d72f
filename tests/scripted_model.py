"""A tiny scripted chat model for core unit tests (in-process, no HTTP).

langchain_core's fake chat models cannot bind tools; this one can. Each call consumes the next
scripted reply (an `AIMessage`, a string, or a dict `{"text": ..., "tool_calls": [...]}`) and
records what it was sent: `model.calls[i]` has `messages`, `system` (text) and `tools` (names).
When the script runs out it answers "(script exhausted)".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import Field

_ids = itertools.count(1)


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        return str(tool.get("name") or (tool.get("function") or {}).get("name"))
    return str(getattr(tool, "name", tool))


def _reply(item: Any, usage: dict[str, int] | None) -> AIMessage:
    if isinstance(item, AIMessage):
        return item
    if isinstance(item, str):
        item = {"text": item}
    calls = [
        {"name": c["name"], "args": c.get("args", {}), "id": c.get("id") or f"call_{next(_ids)}"}
        for c in item.get("tool_calls", [])
    ]
    return AIMessage(content=item.get("text", ""), tool_calls=calls, usage_metadata=usage)  # type: ignore[arg-type]


class ScriptedChatModel(BaseChatModel):
    # not in repr: langchain reprs the model for every run's serialized form (a new one per model
    # copy), and a repr of every message of every call took ~1 s each in a 60-call test
    script: list[Any] = Field(default_factory=list, repr=False)
    calls: list[dict[str, Any]] = Field(default_factory=list, repr=False)
    bound_tools: list[str] = Field(default_factory=list)
    model_name: str = "scripted"
    prompt_tokens: int = 100

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, Any]:
        return self.bind(tools=[_tool_name(t) for t in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        system = "\n".join(m.text for m in messages if isinstance(m, SystemMessage))
        self.calls.append({"messages": list(messages), "system": system, "tools": kwargs.get("tools", [])})
        item = self.script.pop(0) if self.script else "(script exhausted)"
        tokens = self.prompt_tokens
        usage = {"input_tokens": tokens, "output_tokens": 10, "total_tokens": tokens + 10}
        msg = _reply(item, usage)
        msg.response_metadata.setdefault("model_name", self.model_name)
        return ChatResult(generations=[ChatGeneration(message=msg)])
