"""A long reply the server has sent ahead (one socket read holds hundreds of SSE events), as a
real Session streams it from the scripted server: the event loop the TUI shares keeps turning
every few milliseconds, the reply's chunks are merged as they arrive instead of all kept until
the call ends, and what reaches the thread and the front end is the whole reply, in order."""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from pathlib import Path

from langchain_core.outputs import ChatGenerationChunk

from auger.core import events as ev
from auger.core.runtime import open_session as open_local
from llm_server import ScriptedLLM
from session_helpers import options, scripted_settings

KEPT_AT_MOST = 256  # chunks alive at once: two of merged_stream's folds (FOLD = 128)
REPLY = "Start. " + "lorem ipsum dolor sit amet " * 2000  # 54 KB: ~6,750 chunks of 8 characters


async def _long_turn(tmp_path: Path, llm: ScriptedLLM, sample: object) -> tuple[str, str, list[object]]:
    """A warm-up turn (imports, first-call setup), then the sent-ahead reply while `sample()` runs
    at every turn of the loop; returns (text streamed, reply in the thread, samples)."""
    llm.add({"text": "warm"}, {"text": REPLY, "at_once": True})
    session = await open_local(scripted_settings(tmp_path, llm))
    samples: list[object] = []

    async def other_task() -> None:  # what the TUI's key handling is to the loop
        while True:
            samples.append(sample())  # type: ignore[operator]
            await asyncio.sleep(0)

    try:
        async for _ in session.send("warm", options(session)):
            pass
        ticker = asyncio.create_task(other_task())
        streamed = ""
        async for event in session.send("go", options(session)):
            if isinstance(event, ev.TextDelta):
                streamed += event.text
        ticker.cancel()
        history = await session.messages()
    finally:
        await session.aclose()
    return streamed, str(history[-1].content), samples


async def test_a_sent_ahead_reply_lets_the_loop_turn_every_few_milliseconds(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    """Measured in CPU time of the loop's thread, so a loaded machine does not move it: before,
    each 64 KB socket read was parsed whole (50-60 ms of CPU without a turn here, 200-900 ms
    wall under load, keys echoing at p95 832 ms); now a turn comes every ~2 ms of work."""
    gc.disable()  # the TUI's gcpolicy keeps full collections out of a reply; this measures the core
    try:
        streamed, kept, ticks = await _long_turn(tmp_path, scripted_llm, time.thread_time)
    finally:
        gc.enable()
    assert streamed == kept == REPLY
    gaps = [b - a for a, b in itertools.pairwise(ticks)]  # type: ignore[operator]
    assert len(gaps) > 1000
    assert max(gaps) < 0.035, f"the loop went {max(gaps) * 1000:.0f} ms of CPU without a turn"


async def test_a_long_streamed_reply_is_merged_as_it_arrives(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    """langchain-core kept every chunk of a call (~2.5 KB each) until it ended: ~6,750 here,
    ~9,000 for a 70 KB reply, whose peak the allocator kept after /clear. Now at most a fold's."""
    counts = itertools.count()

    def live_chunks() -> int:
        if next(counts) % 200:  # a scan of every object is slow: every 200th turn of the loop
            return 0
        return sum(isinstance(o, ChatGenerationChunk) for o in gc.get_objects())

    streamed, kept, seen = await _long_turn(tmp_path, scripted_llm, live_chunks)
    assert streamed == kept == REPLY
    assert 0 < max(seen) <= KEPT_AT_MOST, f"{max(seen)} chunks of the reply were alive at once"  # type: ignore[type-var]


def _awaiting(task: asyncio.Task[object]) -> list[str]:
    """The coroutines `task` is suspended in, outermost first."""
    names: list[str] = []
    coro: object = task.get_coro()
    while coro is not None:
        names.append(str(getattr(coro, "__qualname__", "")))
        coro = getattr(coro, "cr_await", None)
    return names


async def test_a_cancel_while_the_turn_yields_stops_the_model_call_before_the_answer_is_saved(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    """Esc lands while the Turn gives the loop its turn between stream items (where a key is
    handled): the graph's stream was left suspended, not closed, so the model call went on
    streaming the reply while the Turn saved the partial answer (and until the generator was
    collected), competing with the TUI for the CPU (~1 s in the profile, 169 of its samples)."""
    scripted_llm.add({"text": REPLY})
    session = await open_local(scripted_settings(tmp_path, scripted_llm))
    seen = {"deltas": 0, "cancelled": False, "streamed_while_saving": 0}

    async def user() -> None:  # presses Esc when the Turn is in its own yield, then watches
        while True:
            chains = [_awaiting(task) for task in asyncio.all_tasks()]
            names = [name for chain in chains for name in chain]
            yielding = any({"Turn._stream", "LoopShare.turn"} <= set(chain) for chain in chains)
            if not seen["cancelled"] and seen["deltas"] >= 50 and yielding:
                seen["cancelled"] = True
                session.cancel()
            elif "Turn._cut_short" in names and any(n.endswith("_agenerate_with_cache") for n in names):
                seen["streamed_while_saving"] += 1
            await asyncio.sleep(0)

    watcher = asyncio.create_task(user())
    try:
        async for event in session.send("go", options(session)):
            seen["deltas"] += isinstance(event, ev.TextDelta)
        watcher.cancel()
        history = await session.messages()
    finally:
        await session.aclose()
    assert seen["cancelled"] and "[interrupted]" in str(history[-1].content)
    assert not seen["streamed_while_saving"], "the model call streamed on while the answer was saved"
