"""The Vercel AI SDK UI-message stream (protocol v1, AI SDK 5+) for `POST /chat/stream`.

Request: `{"messages": [UIMessage...], "thread_id"?, "model"?}`; a UIMessage has `role` and
either `parts` (`{"type": "text", "text": ...}`; other part types are ignored) or `content`
(a string, or a list of `{"type": "text", "text": ...}`). The last message is the prompt.

Response: `data: {part}` frames — start, start-step, text-*/reasoning-*/tool-* parts, error,
finish-step, finish — then `data: [DONE]`. Only the main agent's events become parts (a
subagent's work shows as its `task` tool call and output); notices and todos go out as
`data-notice` (transient) and `data-todos` parts; `finish.messageMetadata` carries the thread
id, end reason and token usage.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from auger.core import events as ev
from auger.server.http import ApiError, check_thread_id
from auger.server.http import field as get_field

HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}
DONE = "[DONE]"
Part = dict[str, Any]


@dataclass
class ChatRequest:
    prompt: str
    history: list[tuple[str, str]]  # (role, text) before the prompt: "user" | "assistant"
    thread_id: str | None = None
    model: str | None = None


def parse_chat(body: dict[str, Any]) -> ChatRequest:
    messages = get_field(body, "messages", list, required=True)
    if not messages:
        raise ApiError(400, "Field 'messages' is empty; send at least one user message.")
    turns: list[tuple[str, str]] = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise ApiError(400, f"messages[{i}] must be an object with 'role' and 'parts' or 'content'.")
        role = msg.get("role")
        if role not in ("user", "assistant", "system"):
            raise ApiError(400, f"messages[{i}].role must be 'user', 'assistant' or 'system', not {role!r}.")
        if role != "system":
            turns.append((role, _message_text(msg, i)))
    if not turns or turns[-1][0] != "user" or not turns[-1][1].strip():
        raise ApiError(400, "The last message must be a user message with text.")
    return ChatRequest(
        prompt=turns[-1][1],
        history=[t for t in turns[:-1] if t[1]],
        thread_id=None if (given := get_field(body, "thread_id", str)) is None else check_thread_id(given),
        model=get_field(body, "model", str),
    )


def _message_text(msg: dict[str, Any], i: int) -> str:
    parts = msg.get("parts")
    if parts is None and isinstance(msg.get("content"), str):
        return str(msg["content"])
    if parts is None:
        parts = msg.get("content")
    if not isinstance(parts, list):
        raise ApiError(400, f"messages[{i}] needs 'parts' (a list) or 'content' (a string or a list).")
    texts: list[str] = []
    for j, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            raise ApiError(400, f"messages[{i}].parts[{j}] must be an object.")
        elif part.get("type") == "text":
            if not isinstance(part.get("text"), str):
                raise ApiError(400, f"messages[{i}].parts[{j}].text must be a string.")
            texts.append(part["text"])
    return "".join(texts)


def to_langchain(history: list[tuple[str, str]]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    return [HumanMessage(text) if role == "user" else AIMessage(text) for role, text in history]


@dataclass
class UIStream:
    """Maps IR events of one turn onto UI-message stream parts, keeping block ids and steps."""

    thread_id: str
    stateless: bool = False
    message_id: str = field(default_factory=lambda: f"msg-{uuid.uuid4().hex[:16]}")
    _open: tuple[str, str] | None = None  # ("text" | "reasoning", block id)
    _n: int = 0
    _step_has_results: bool = False
    _usage: dict[str, int] = field(
        default_factory=lambda: {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    )

    def start(self) -> list[Part]:
        return [
            {"type": "start", "messageId": self.message_id, "messageMetadata": self._meta()},
            {"type": "start-step"},
        ]

    def feed(self, event: ev.Event) -> list[Part]:
        if getattr(event, "parent_id", None) is not None:
            return []
        handler = self._handlers.get(type(event))
        return handler(self, event) if handler is not None else []

    def _delta(self, event: ev.TextDelta | ev.ReasoningDelta) -> list[Part]:
        kind = "text" if isinstance(event, ev.TextDelta) else "reasoning"
        parts = self._block(kind)
        assert self._open is not None
        return [*parts, {"type": f"{kind}-delta", "id": self._open[1], "delta": event.text}]

    def _tool_result(self, event: ev.ToolCallFinished) -> list[Part]:
        self._step_has_results = True
        if event.status == "success":
            return [{"type": "tool-output-available", "toolCallId": event.call_id, "output": event.output}]
        return [{"type": "tool-output-error", "toolCallId": event.call_id, "errorText": event.output}]

    def _error(self, event: ev.Error) -> list[Part]:
        return [*self._close(), {"type": "error", "errorText": event.message}]

    def _notice(self, event: ev.Notice) -> list[Part]:
        data = {"message": event.message, "level": event.level}
        return [{"type": "data-notice", "data": data, "transient": True}]

    def _todos(self, event: ev.TodosUpdated) -> list[Part]:
        return [{"type": "data-todos", "id": "todos", "data": event.todos}]

    def _count(self, event: ev.Usage) -> list[Part]:
        self._usage["inputTokens"] += event.input_tokens
        self._usage["outputTokens"] += event.output_tokens
        self._usage["totalTokens"] += event.total_tokens
        return []

    def finish(self, reason: str) -> list[Part]:
        meta = {**self._meta(), "reason": reason, "usage": self._usage}
        return [*self._close(), {"type": "finish-step"}, {"type": "finish", "messageMetadata": meta}]

    def _meta(self) -> dict[str, Any]:
        """The thread id, for a client to continue it (none for a stateless chat)."""
        return {"threadId": None if self.stateless else self.thread_id}

    # -- internals ------------------------------------------------------------------------------
    def _tool_call(self, event: ev.ToolCallStarted) -> list[Part]:
        call, name = event.call_id, event.name
        return [
            *self._close(),
            *self._next_step(),
            {"type": "tool-input-start", "toolCallId": call, "toolName": name},
            {
                "type": "tool-input-delta",
                "toolCallId": call,
                "inputTextDelta": json.dumps(event.args, ensure_ascii=False, default=str),
            },
            {"type": "tool-input-available", "toolCallId": call, "toolName": name, "input": event.args},
        ]

    def _next_step(self) -> list[Part]:
        """A model call after tool results is a new step."""
        if not self._step_has_results:
            return []
        self._step_has_results = False
        return [{"type": "finish-step"}, {"type": "start-step"}]

    def _block(self, kind: str) -> list[Part]:
        if self._open is not None and self._open[0] == kind:
            return []
        parts = [*self._close(), *self._next_step()]
        self._n += 1
        self._open = (kind, f"{kind}-{self._n}")
        return [*parts, {"type": f"{kind}-start", "id": self._open[1]}]

    def _close(self) -> list[Part]:
        if self._open is None:
            return []
        kind, block_id = self._open
        self._open = None
        return [{"type": f"{kind}-end", "id": block_id}]

    _handlers: ClassVar[dict[type[ev.Event], Callable[[Any, Any], list[Part]]]] = {
        ev.TextDelta: _delta,
        ev.ReasoningDelta: _delta,
        ev.ToolCallStarted: _tool_call,
        ev.ToolCallFinished: _tool_result,
        ev.Error: _error,
        ev.Notice: _notice,
        ev.TodosUpdated: _todos,
        ev.Usage: _count,
    }
