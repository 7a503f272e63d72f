"""A streamed model reply merged as its chunks arrive, not kept whole until the call ends.

langchain-core's streaming path (BaseChatModel._agenerate_with_cache) keeps every
`ChatGenerationChunk` of a call in a list (~2.5 KB each: the message, its metadata dicts) and
merges them all when the stream ends (`generate_from_stream`). For a 70 KB reply in 8-character
chunks that is ~9,000 chunks, ~20 MB at the peak (which the allocator keeps resident after the
reply is gone: RSS after `/clear` stayed ~25 MB up), and one merge of 100-200 ms at the end,
without a turn of the event loop the TUI shares.

`MergedStream` (a mixin before the provider's chat model class) streams the call itself: the
same chunks reach the callbacks in the same order with the same ids (`on_llm_new_token`, so
LangGraph's "messages" stream is unchanged), and they are folded into one running chunk every
`FOLD` chunks. langchain-core asks `_agenerate` for the reply instead of streaming it when
`_should_stream` says no: that is what the mixin answers for a call it streams itself, and it
keeps langchain's own path for everything else (`astream`, output_version "v1", no streaming
callback).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import _gen_info_and_msg_metadata
from langchain_core.messages import AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.utils import LC_ID_PREFIX

FOLD = 128  # chunks merged into the running reply at a time (a merge per chunk would be O(n²))


class RunningReply:
    """The chunks of one streamed reply so far, merged `FOLD` at a time."""

    def __init__(self) -> None:
        self._merged: ChatGenerationChunk | None = None
        self._pending: list[ChatGenerationChunk] = []
        self.last: ChatGenerationChunk | None = None

    def add(self, chunk: ChatGenerationChunk) -> None:
        self.last = chunk
        self._pending.append(chunk)
        if len(self._pending) >= FOLD:
            self._fold()

    def _fold(self) -> None:
        if not self._pending:
            return
        head, rest = (
            (self._pending[0], self._pending[1:]) if self._merged is None else (self._merged, self._pending)
        )
        self._merged = head + rest if rest else head
        self._pending = []

    def result(self) -> ChatResult:
        self._fold()
        if self._merged is None:
            raise ValueError("No generations found in stream.")
        message = message_chunk_to_message(self._merged.message)
        return ChatResult(
            generations=[ChatGeneration(message=message, generation_info=self._merged.generation_info)]
        )


class MergedStream(BaseChatModel):
    """Mixin: stream a call that langchain-core would stream, merging its chunks as they come."""

    def _streams_itself(self, run_manager: Any, kwargs: dict[str, Any]) -> bool:
        return (
            run_manager is not None
            and self.output_version != "v1"
            and super()._should_stream(async_api=True, run_manager=run_manager, **kwargs)
        )

    def _should_stream(self, *, async_api: bool, run_manager: Any = None, **kwargs: Any) -> bool:
        if async_api and self._streams_itself(run_manager, kwargs):
            return False  # `_agenerate` streams it (below)
        return super()._should_stream(async_api=async_api, run_manager=run_manager, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not self._streams_itself(run_manager, kwargs):
            return await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)
        run_id = f"{LC_ID_PREFIX}-{run_manager.run_id}"
        reply = RunningReply()
        async for chunk in self._astream(messages, stop=stop, **kwargs):
            chunk.message.response_metadata = _gen_info_and_msg_metadata(chunk)  # as langchain-core does
            if chunk.message.id is None:
                chunk.message.id = run_id
            await run_manager.on_llm_new_token(chunk.message.content, chunk=chunk)
            reply.add(chunk)
        last = reply.last
        if last is not None and isinstance(last.message, AIMessageChunk) and not last.message.chunk_position:
            empty: Any = "" if isinstance(last.message.content, str) else []
            end = ChatGenerationChunk(message=AIMessageChunk(content=empty, chunk_position="last", id=run_id))
            await run_manager.on_llm_new_token("", chunk=end)
            reply.add(end)
        return reply.result()
