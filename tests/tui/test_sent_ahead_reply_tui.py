"""The TUI while a long reply streams in as fast as the server can write it (black's CHANGES.md,
70 KB, ~1.7 MB of SSE: the server is always ahead of the client): Esc ends the turn at once,
keeps the text received so far in the thread, and stops the model call itself."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from conftest_tui import Tui, ready, replies, send_nowait, tui, wait_for  # noqa: F401

REPLY = (Path(__file__).parents[2] / "bench" / "corpus" / "black-CHANGES-70k.md").read_text(encoding="utf-8")


def model_calls_running() -> int:
    """Tasks of this loop still inside a chat model call (langchain-core's streaming call)."""
    running = 0
    for task in asyncio.all_tasks():
        coro: object = task.get_coro()
        while coro is not None:
            if getattr(coro, "__qualname__", "").endswith("_agenerate_with_cache"):
                running += 1
                break
            coro = getattr(coro, "cr_await", None)
    return running


async def test_escape_during_a_long_fast_reply_ends_the_turn_and_the_model_call(tui: Tui) -> None:
    tui.llm.add({"text": REPLY})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        send_nowait(app, "show me the changelog")
        await wait_for(pilot, lambda: len("".join(replies(app))) > 2000)
        cpu = time.thread_time()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy, timeout=60)
        took_cpu = time.thread_time() - cpu
        # the model call was closed, not left streaming the rest of the reply in the background
        # (it did until its generator was collected: ~1 s of CPU competing with the TUI)
        assert model_calls_running() == 0
        history = await app.session.messages()  # type: ignore[union-attr]
    kept = str(history[-1].content)
    assert kept.startswith(REPLY[:2000]) and "[interrupted]" in kept and len(kept) < len(REPLY) // 2
    assert took_cpu < 0.6, f"Esc took {took_cpu:.2f} s of CPU to end the turn"
