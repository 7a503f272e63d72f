"""The summarization trigger's token estimate, each message counted once.

deepagents' summarization estimates the request's size before every model call with langchain's
`count_tokens_approximately` over the whole history: O(history) per call, ~8 ms a call at 1,200
messages. `ApproximateTokens` gives the same number — each message's share is that function's
count of the message alone (kept per message object: `MessageMemo`), the shares are summed in
order, and the usage-metadata scaling is applied as it does (the most recent AI message's reported
total over the estimate up to it, clamped to 1..1.25, only when all AI messages name one
provider). `for_model` picks langchain's defaults for the model (3.3 chars a token for Anthropic,
4 otherwise). `unscaled` is the variant langchain uses for cut-off searches.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from itertools import repeat
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.utils.pydantic import model_json_schema

from auger.core.models.requests.message_memo import MessageMemo, common_prefix


class ApproximateTokens:
    def __init__(self, chars_per_token: float = 4.0, *, scaling: bool = True) -> None:
        self.chars_per_token = chars_per_token
        self.scaling = scaling
        self._shares = MessageMemo(lambda m: count_tokens_approximately([m], chars_per_token=chars_per_token))
        self._tools = MessageMemo(_tool_chars)  # tool objects are kept from call to call too
        self._running = _Running()
        self.unscaled = self if not scaling else ApproximateTokens(chars_per_token, scaling=False)

    @classmethod
    def for_model(cls, model: Any) -> ApproximateTokens:
        llm_type = str(getattr(model, "_llm_type", ""))
        return cls(3.3 if llm_type.startswith("anthropic-chat") else 4.0)

    def __call__(self, messages: Iterable[Any], *, tools: list[Any] | None = None) -> int:
        messages = list(messages)
        odd_tools = any(not isinstance(t, dict) and not hasattr(t, "tool_call_schema") for t in tools or ())
        # langchain converts anything but messages (a C-level check, no Python step per message)
        if odd_tools or not all(map(isinstance, messages, repeat(BaseMessage))):
            return count_tokens_approximately(
                messages,
                chars_per_token=self.chars_per_token,
                use_usage_metadata_scaling=self.scaling,
                tools=tools,
            )
        total = 0.0
        if tools:
            total += math.ceil(sum(self._tools.map(tools)) / self.chars_per_token)
        count = len(messages)
        if messages and isinstance(messages[0], SystemMessage):  # rebuilt for every call: counted apart
            total += count_tokens_approximately(messages[:1], chars_per_token=self.chars_per_token)
            messages = messages[1:]
        shares = self._shares.map(messages)
        if not self.scaling:
            return math.ceil(total + sum(shares))
        shares_sum, provider, mixed, last_total, at_shares = self._running.over(messages, shares)
        at_last = total + at_shares  # the estimate up to the last reported usage
        total += shares_sum  # integer-valued floats: the same sum in any order
        if count > 1 and not mixed and provider is not None and last_total is not None and at_last > 0:
            total *= min(1.25, max(1.0, last_total / at_last))
        return math.ceil(total)


class _Running:
    """The sums over a message list that the scaling needs, after each message: resumable at the
    prefix a new list shares with the last one."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        # after each message: (shares summed, first AI provider, mixed providers, last reported
        # total, shares summed up to it), as langchain tracks them
        self.states: list[tuple[float, str | None, bool, int | None, float]] = [(0.0, None, False, None, 0.0)]

    def over(
        self, messages: list[Any], shares: list[int]
    ) -> tuple[float, str | None, bool, int | None, float]:
        keep = common_prefix(self.messages, messages)
        del self.states[keep + 1 :]
        total, provider, mixed, last_total, at_last = self.states[-1]
        for message, share in zip(messages[keep:], shares[keep:], strict=True):
            total += share
            if isinstance(message, AIMessage):
                named = message.response_metadata.get("model_provider")
                if provider is None:
                    provider = named
                elif named != provider:
                    mixed = True
                usage = message.usage_metadata
                if usage and isinstance(reported := usage.get("total_tokens"), int):
                    last_total, at_last = reported, total
            self.states.append((total, provider, mixed, last_total, at_last))
        self.messages = messages
        return self.states[-1]


def _tool_chars(tool: Any) -> int:
    """What `count_tokens_approximately` counts of a tool: its JSON (name, description, schema)."""
    if isinstance(tool, dict):
        return len(json.dumps(tool))
    schema = tool.tool_call_schema
    parameters = dict(schema) if isinstance(schema, dict) else dict(model_json_schema(schema))
    parameters.pop("title", None)
    parameters.pop("description", None)
    return len(json.dumps({"name": tool.name, "description": tool.description, "parameters": parameters}))
