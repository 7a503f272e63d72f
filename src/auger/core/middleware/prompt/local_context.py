"""LocalContextMiddleware: the project's facts, as a note at the head of the conversation.

The facts (git status, recent commits, top-level entries) change whenever a file does, so they
are NOT in the system prompt: the system prompt and the tool list stay byte-identical across
sessions and turns in a project, and a server's prefix cache (llama.cpp, vLLM, Anthropic,
OpenAI) survives a file change. The note is put in front of the first user message of each
request (in the request only; state keeps the message as typed), so it comes after the stable
prefix. A separate user message would break chat templates that require user/assistant to
alternate.

Detected (see `auger.core.agent.project_facts`) through the agent's backend, so a sandboxed agent
describes the sandbox it works in. The result is cached in checkpointed state (`_local_context`)
and detected again only when the thread has none yet or the history has been summarised since:
deepagents' summarization records each compaction in `_summarization_event` (its `cutoff_index`
grows), and `_local_context_mark` remembers the cutoff the facts were detected at. Detection
and the state update happen inside the model call (the update is a `Command` next to the reply),
not in a `before_model` hook: a hook is a graph step of its own, with a checkpoint, on every call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, PrivateStateAttr
from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.types import Command

from auger.core.agent.project_facts import detect

CONTEXT_KEY = "_local_context"
MARK_KEY = "_local_context_mark"
SUMMARIZATION_EVENT_KEY = "_summarization_event"  # deepagents.middleware.summarization


class LocalContextState(AgentState):  # type: ignore[type-arg]
    _local_context: NotRequired[Annotated[str, PrivateStateAttr]]
    _local_context_mark: NotRequired[Annotated[int, PrivateStateAttr]]


def summarization_mark(state: Any) -> int:
    """The cutoff of the latest summarization (-1: never summarised)."""
    event = state.get(SUMMARIZATION_EVENT_KEY)
    cutoff = event.get("cutoff_index") if isinstance(event, dict) else None
    return int(cutoff) if isinstance(cutoff, int) else -1


def needs_detection(state: Any) -> bool:
    return not state.get(CONTEXT_KEY) or state.get(MARK_KEY, -1) != summarization_mark(state)


def with_note(message: HumanMessage, text: str) -> HumanMessage:
    """`message` with `text` in front of what the user wrote."""
    content = message.content
    if isinstance(content, str):
        return message.model_copy(update={"content": f"{text}\n\n{content}"})
    return message.model_copy(update={"content": [{"type": "text", "text": text}, *content]})


def with_context(messages: list[AnyMessage], text: str) -> list[AnyMessage]:
    """`messages` with the context note in the first user message (or first, on its own)."""
    for i, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            return [*messages[:i], with_note(message, text), *messages[i + 1 :]]
    return [HumanMessage(text), *messages]


def with_facts(request: ModelRequest, update: dict[str, Any] | None) -> ModelRequest:
    text = (update or request.state).get(CONTEXT_KEY)
    if not isinstance(text, str) or not text:
        return request
    return request.override(messages=with_context(request.messages, text))


def with_update(response: Any, update: dict[str, Any] | None) -> Any:
    return ExtendedModelResponse(response, Command(update=update)) if update else response


class LocalContextMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    state_schema = LocalContextState

    def __init__(self, backend: Any, root: str = "", detector: Callable[[Any, str], str] = detect) -> None:
        super().__init__()
        self._backend = backend
        self._root = root
        self._detect = detector

    def facts_update(self, state: Any) -> dict[str, Any] | None:
        """The state update that detects the facts (None while the cached ones hold)."""
        if not needs_detection(state):
            return None
        return {CONTEXT_KEY: self._detect(self._backend, self._root), MARK_KEY: summarization_mark(state)}

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        update = self.facts_update(request.state)
        return with_update(handler(with_facts(request, update)), update)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        update = (
            await asyncio.to_thread(self.facts_update, request.state)
            if needs_detection(request.state)
            else None
        )
        return with_update(await handler(with_facts(request, update)), update)
