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
import operator
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.utils.pydantic import model_json_schema

from auger.core.middleware.model.message_memo import MessageMemo


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
        if odd_tools or not all(isinstance(m, BaseMessage) for m in messages):  # langchain converts these
            return count_tokens_approximately(
                messages,
                chars_per_token=self.chars_per_token,
                use_usage_metadata_scaling=self.scaling,
                tools=tools,
            )
        total = 0.0
        if tools:
            total += math.ceil(sum(self._tools.map(tools)) / self.chars_per_token)
        shares = self._shares.map(messages)
        if not self.scaling:
            return math.ceil(total + sum(shares))
        run = self._running = self._running.over(messages, shares)
        total += run.shares  # integer-valued floats: the same sum in any order
        at_last = total - run.shares + run.at_last  # the estimate up to the last reported usage
        known = run.provider is not None and run.last_total is not None and not run.mixed
        if known and len(messages) > 1 and at_last > 0 and run.last_total is not None:
            total *= min(1.25, max(1.0, run.last_total / at_last))
        return math.ceil(total)


class _Running:
    """The sums over a message list that the scaling needs, resumable when the list only grew."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.shares = 0.0  # the shares summed
        self.provider: str | None = None  # the first AI message's provider (as langchain keeps it)
        self.mixed = False  # AI messages of more than one provider
        self.last_total: int | None = None  # the most recent reported total
        self.at_last = 0.0  # the shares summed up to that message

    def over(self, messages: list[Any], shares: list[int]) -> _Running:
        before = self.messages
        grown = bool(before) and len(messages) >= len(before) and all(map(operator.is_, before, messages))
        run = self if grown else _Running()
        for message, share in zip(messages[len(run.messages) :], shares[len(run.messages) :], strict=True):
            run.shares += share
            if isinstance(message, AIMessage):
                run._note(message)
        run.messages = messages
        return run

    def _note(self, message: AIMessage) -> None:
        named = message.response_metadata.get("model_provider")
        if self.provider is None:
            self.provider = named
        elif named != self.provider:
            self.mixed = True
        usage = message.usage_metadata
        if usage and isinstance(reported := usage.get("total_tokens"), int):
            self.last_total, self.at_last = reported, self.shares


def _tool_chars(tool: Any) -> int:
    """What `count_tokens_approximately` counts of a tool: its JSON (name, description, schema)."""
    if isinstance(tool, dict):
        return len(json.dumps(tool))
    schema = tool.tool_call_schema
    parameters = dict(schema) if isinstance(schema, dict) else dict(model_json_schema(schema))
    parameters.pop("title", None)
    parameters.pop("description", None)
    return len(json.dumps({"name": tool.name, "description": tool.description, "parameters": parameters}))
