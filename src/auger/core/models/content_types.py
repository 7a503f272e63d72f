"""langchain-core's list of data content-block types, computed once instead of on every block.

`langchain_core.messages.content.is_data_content_block` — which every provider package calls for
each block of each list-content message while it formats a request (langchain-openai's
`_format_message_content`, langchain-anthropic's formatter, the chat-model base's normaliser) —
rebuilds the tuple of data-block types from the `DataContentBlock` TypedDicts with
`typing.get_type_hints` on every call: ~0.35 ms a block, five blocks or more per model call in a
thread whose first message carries the project-facts note (langchain-core 1.8.3 and 1.8.4). The
tuple depends only on those static type definitions, so `cache_block_types()` puts a cached
function in its place; `is_data_content_block` reads the module global, so it gets the cache.
The answer is checked to be the same (tests/core/test_step_cost.py).
"""

from __future__ import annotations

import functools


def cache_block_types() -> None:
    from langchain_core.messages import content

    # gone in a later release: nothing to do
    compute = getattr(content, "_get_data_content_block_types", None)
    if callable(compute) and not isinstance(compute, functools._lru_cache_wrapper):
        content._get_data_content_block_types = functools.cache(compute)  # type: ignore[assignment]
