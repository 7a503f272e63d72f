"""A turn's Python work does not grow with the thread (issue 16, item 2): no function auger runs
on the event loop — its own, langchain's, LangGraph's — takes a Python step per message of the
history. Counted as Python line events (`sys.settrace`) per function, in two turns early in a
thread and in two ~170 messages later: a pass over the history, even once in two turns and one
line a message, adds at least that many; what is bounded by design stays under it. The late two
hold the write that makes LangGraph store the whole message list as a snapshot (every 50 writes:
the 200th message), which is encoded without a Python step per message too."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import options, scripted_settings

# turns traced (and the next); each adds 4 messages (prompt, call, result, answer): turn 49 the
# 200th, with a snapshot (turns 5 and 6, messages 21-28, hold none). A turn's start replays the
# writes since the last snapshot (bounded by its frequency): 20 + 24 early, 46 + 0 late.
EARLY, LATE = 5, 49
# the event loop's own (its rounds depend on timing) and the start-of-turn replay of the writes
# since the thread's last snapshot (bounded by its frequency: tests/core/test_history_cost.py)
UNCOUNTED = ("asyncio/", "selectors.py", "threads/messages_reducer.py")


def _traced(counts: Counter[tuple[str, int, str]]) -> Any:
    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            code = frame.f_code
            counts[(code.co_filename, code.co_firstlineno, code.co_name)] += 1
        return local

    return lambda frame, event, arg: local


async def test_no_function_takes_a_python_step_per_message_of_the_thread(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    session = await open_session(scripted_settings(tmp_path, scripted_llm))
    counts: dict[int, Counter[tuple[str, int, str]]] = {}
    try:
        for i in range(LATE + 2):
            call = {"name": "ls", "args": {"path": "/"}, "id": f"call_{i}"}
            scripted_llm.add({"tool_calls": [call]}, {"text": f"answer {i}"})
            if i in (EARLY, EARLY + 1, LATE, LATE + 1):
                counts[i] = Counter()
                sys.settrace(_traced(counts[i]))
            try:
                events = [e async for e in session.send(f"question {i}", options(session, headless=True))]
            finally:
                sys.settrace(None)
            assert type(events[-1]).__name__ == "TurnEnded", events[-1]
        history = len(await session.messages())
    finally:
        await session.aclose()
    assert history == 4 * (LATE + 2)
    added = 4 * (LATE - EARLY)
    early, late = (counts[at] + counts[at + 1] for at in (EARLY, LATE))
    grown = {
        f"{path.split('site-packages/')[-1].split('/src/')[-1]}:{line} {name}": n - early[key]
        for key, n in late.items()
        for path, line, name in [key]
        if not any(part in path for part in UNCOUNTED)
    }
    growing = {name: n for name, n in grown.items() if n >= added}
    assert not growing, f"{added} messages later these take {growing} more Python steps a turn"
    assert sum(late.values()) < 1.03 * sum(early.values())
