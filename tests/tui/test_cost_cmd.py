"""Pilot: /cost shows tokens and money per model for the thread and its last turn, priced from
genai-prices' table for a known provider (an OpenAI model served by the scripted server here),
and "price unknown" for a local model — after a /model switch mid-thread, both rows."""

from __future__ import annotations

import genai_prices
import pytest
from conftest_tui import Tui, ready, tui, turn  # noqa: F401

from auger.tui.widgets.messages import InfoBlock
from llm_server import _tokens


async def test_cost_per_model_thread_and_turn(tui: Tui, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tui.env
    monkeypatch.setenv("SCRIPTED_OPENAI_KEY", "sk-test")
    env.write_config(
        f'[providers.openai]\nbase_url = "{env.llm.base_url}"\napi_key_env = "SCRIPTED_OPENAI_KEY"\n'
        'models = ["gpt-4.1"]\n',
        model="openai:gpt-4.1",
    )
    env.llm.add(
        {"text": "one", "prompt_tokens": 1000, "when": {"model": "gpt-4.1"}},
        {"text": "two", "prompt_tokens": 3000, "when": {"model": "gpt-4.1"}},
        {"text": "three", "prompt_tokens": 500, "when": {"model": "scripted-model"}},
    )
    app = tui.app()
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "first")
        await turn(pilot, "second")
        await turn(pilot, "/cost")
        table = app.transcript.query(InfoBlock).last().source
        usage = genai_prices.Usage(input_tokens=4000, output_tokens=_tokens("one") + _tokens("two"))
        expected = genai_prices.calc_price(usage, "gpt-4.1", provider_id="openai")
        assert f"${float(expected.total_price):.4f}" in table  # the thread: both calls
        assert "thread" in table and "turn" in table and "openai:gpt-4.1" in table
        assert app.status.cost == f"${float(expected.total_price):.4f}"  # in the status line too
        await turn(pilot, "/model local:scripted-model")
        await turn(pilot, "third")
        await turn(pilot, "/cost")
        table = app.transcript.query(InfoBlock).last().source
        assert "local:scripted-model" in table and "price unknown" in table
        assert "+ unknown" in table.split("Total")[1]
