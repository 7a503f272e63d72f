"""The model's tokens into a turn's stream, without LangGraph's "messages" stream mode.

`stream_mode="messages"` attaches LangGraph's StreamMessagesHandler, which on the start of every
graph node walks the node's whole input state to note the ids of every message in it — six nodes
per agent step, each O(history): ~16 ms of a turn at 1,200 messages, and part of every step of a
long turn. The translator needs only the chunks a `model` node streams (`StreamTranslator`
ignores the rest), so a turn attaches `TokenRelay` as a run callback instead: it notes the chat
model runs of `model` nodes (not those tagged "nostream", as LangGraph skips them) and sends each
chunk they stream through the graph's own stream writer, as a custom event — the same stream,
so the same order with the updates and the same subgraph namespace (a subagent's tokens carry
its task's namespace), as the "messages" chunks had.

It also keeps what the main agent's last model call was sent besides the conversation (its
system message and tool schemas, by reference): a turn cut short before any provider reported
its usage counts them in its context estimate (`Session.keep_cut_short`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

try:  # what makes a chat model stream (LangGraph's messages handler is one too)
    from langchain_core.tracers._streaming import _StreamingCallbackHandler
except ImportError:  # pragma: no cover - a langchain-core without it streams through `streaming=True`
    _StreamingCallbackHandler = object  # type: ignore[assignment,misc]

TOKEN_EVENT = "model_token"  # the custom event's `auger_event`
T = TypeVar("T")


class TokenRelay(BaseCallbackHandler, _StreamingCallbackHandler):  # type: ignore[misc]
    run_inline = True  # in the model call's own task and context, where the stream writer is
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True

    def __init__(self) -> None:
        self._runs: set[UUID] = set()  # chat model runs of `model` nodes, streaming now
        self.prompt: tuple[Any, list[Any]] | None = None  # the main agent's (system message, tools)

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if (metadata or {}).get("langgraph_node") == "model" and "nostream" not in (tags or ()):
            self._runs.add(run_id)
            if "|" not in str((metadata or {}).get("langgraph_checkpoint_ns") or "") and messages:
                first = messages[0][0] if messages[0] else None  # a subagent's namespace has a "|"
                system = first if getattr(first, "type", None) == "system" else None
                self.prompt = (system, (kwargs.get("invocation_params") or {}).get("tools") or [])

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, run_id: UUID, **kwargs: Any) -> None:
        if run_id not in self._runs or not isinstance(chunk, ChatGenerationChunk):
            return
        if isinstance(chunk.message, AIMessageChunk):
            from langgraph.config import get_stream_writer

            get_stream_writer()({"auger_event": TOKEN_EVENT, "chunk": chunk.message})

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._runs.discard(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._runs.discard(run_id)
