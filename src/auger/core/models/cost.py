"""What a thread has cost: tokens per model (from each reply's `usage_metadata` and the spec
the model middleware tags it with), for the whole thread and for its last turn, priced with
genai-prices' bundled table (no network). A provider auger does not know the prices of (a
local server, a custom endpoint) is "price unknown", never a guess from the model's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from auger.core.middleware.model.configurable_model import SPEC_KEY

PRICED = {"openai": "openai", "anthropic": "anthropic", "google": "google", "google_genai": "google"}


@dataclass(frozen=True)
class ModelCost:
    scope: str  # "thread" | "turn"
    model: str  # provider:model
    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    price: float | None  # USD; None: unknown


def _usage(message: Any) -> tuple[int, int, int] | None:
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return None
    details = usage.get("input_token_details") or {}
    return (
        int(usage.get("input_tokens") or 0),
        int(usage.get("output_tokens") or 0),
        int(details.get("cache_read") or 0),
    )


def price(spec: str, input_tokens: int, output_tokens: int, cache_read: int) -> float | None:
    """USD for these tokens of `spec` ("provider:model"), or None when the price is not known."""
    provider, _, model = spec.partition(":")
    if provider not in PRICED or not model:
        return None
    import genai_prices

    usage = genai_prices.Usage(
        input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read
    )
    try:
        return float(genai_prices.calc_price(usage, model, provider_id=PRICED[provider]).total_price)
    except LookupError:
        return None


def costs(messages: Iterable[Any], default_spec: str | None) -> list[ModelCost]:
    """Per model, the thread's and the last turn's (after the last user message) costs."""
    from langchain_core.messages import AIMessage, HumanMessage

    sums: dict[tuple[str, str], list[int]] = {}
    turn: dict[str, list[int]] = {}
    for message in messages:
        if isinstance(message, HumanMessage):
            turn = {}
        found = _usage(message) if isinstance(message, AIMessage) else None
        if found is None:
            continue
        spec = str(message.response_metadata.get(SPEC_KEY) or default_spec or "unknown")
        for table in (sums.setdefault(("thread", spec), [0, 0, 0, 0]), turn.setdefault(spec, [0, 0, 0, 0])):
            for i, value in enumerate((1, *found)):
                table[i] += value
    rows = {**sums, **{("turn", spec): totals for spec, totals in turn.items()}}
    return [
        ModelCost(scope, spec, calls, inp, out, cache, price(spec, inp, out, cache))
        for (scope, spec), (calls, inp, out, cache) in rows.items()
    ]
