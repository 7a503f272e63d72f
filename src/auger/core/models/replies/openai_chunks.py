"""Streamed chat-completion chunks as the dicts they arrive as.

The openai SDK turns every SSE chunk of a streamed chat completion into a `ChatCompletionChunk`
pydantic model (`construct_type`: type introspection per field, ~1 ms a chunk), and
langchain-openai turns it straight back into a dict (`chunk.model_dump()`) — about half of what
a fast stream costs the whole process (profiled: 20,000 tokens in 16-character chunks). The
SDK hands a stream's chunks over as plain data when the type asked for is `object`, and
langchain-openai takes a dict chunk as it is, so `raw_chunks` makes the client do that for
`ChatCompletionChunk` only: every other response (errors, non-streamed completions) is built as
before. What differs from a model's `model_dump()`: absent keys stay absent (langchain reads
them with `.get`), except `delta`, which the model sets to None when a chunk has none.
"""

from __future__ import annotations

from typing import Any


def raw_chunks(model: Any) -> Any:
    """Make `model`'s (a ChatOpenAI's) async client yield streamed chunks as dicts; returns it."""
    from openai.types.chat import ChatCompletionChunk

    client = getattr(model, "root_async_client", None)
    if client is None or not hasattr(client, "_process_response_data"):
        return model  # an SDK without the hook: chunks are built the usual way
    built = client._process_response_data

    def process(*, data: object, cast_to: Any, response: Any) -> Any:
        if cast_to is ChatCompletionChunk and isinstance(data, dict):
            for choice in data.get("choices") or ():
                if isinstance(choice, dict):
                    choice.setdefault("delta", None)
            return data
        return built(data=data, cast_to=cast_to, response=response)

    client._process_response_data = process
    return model
