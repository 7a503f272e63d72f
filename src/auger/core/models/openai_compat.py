"""ChatOpenAI for OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, OpenRouter).

Those servers stream the model's reasoning as `delta.reasoning_content` (or `delta.reasoning`),
which langchain-openai drops; keep it in `additional_kwargs["reasoning_content"]` so the session
can show it. Imported only when such a provider is used.

Both classes merge a streamed reply as it arrives (auger.core.models.replies.merged_stream) and convert
a tool set's schemas once (auger.core.models.requests.tool_schemas) and each message of a request to its
dict once (auger.core.models.requests.message_dicts).
"""

from __future__ import annotations

from typing import Any

from langchain_core.outputs import ChatGenerationChunk

from auger.core.models.replies.merged_stream import MergedStream
from auger.core.models.requests.message_dicts import ChatOpenAIMessageMemo
from auger.core.models.requests.tool_schemas import CachedToolBinding


class ChatOpenAIStreamed(CachedToolBinding, MergedStream, ChatOpenAIMessageMemo):
    """ChatOpenAI (OpenAI itself) with its streamed replies merged as they arrive, its tool
    schemas converted once per tool set (auger.core.models.requests.tool_schemas) and each message
    converted to its dict once (auger.core.models.requests.message_dicts)."""


class ChatOpenAICompatible(ChatOpenAIStreamed):
    def _convert_chunk_to_generation_chunk(
        self, chunk: dict[str, Any], default_chunk_class: type, base_generation_info: dict[str, Any] | None
    ) -> ChatGenerationChunk | None:
        gen = super()._convert_chunk_to_generation_chunk(chunk, default_chunk_class, base_generation_info)
        choices = chunk.get("choices") or []
        if gen is None or not choices:
            return gen
        delta = choices[0].get("delta") or {}
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            gen.message.additional_kwargs["reasoning_content"] = reasoning
        return gen
