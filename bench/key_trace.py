"""Where a typed key's echo time goes, inside auger: per key, when the driver's input thread read
it, when the prompt began and finished handling it, when the prompt was painted into a frame and
when that frame was handed to the terminal writer (and how big it was), and how long the agent's
loop share held for it.

    python bench/key_trace.py [--rounds N] [--build PYTHON] [--rate TOK_S] [--slowest PCT]

runs bench_markdown's echo round with auger started through this file (`run OUT.json`), which
wraps those methods (instrumentation only: nothing else changes) and writes the stamps at exit.
`--build` is the python of the build to trace (default: this one).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _instrument(out: str) -> None:
    from auger.tui import typing_pace
    from auger.tui.widgets.prompt import PromptInput

    keys: list[dict[str, float]] = []
    frames: list[tuple[float, int]] = []
    holds: list[tuple[float, float]] = []
    state: dict[str, Any] = {"painted": None}

    arrived = typing_pace.TypingPace.arrived

    def noted(self: Any) -> None:
        keys.append({"arrived": time.perf_counter()})
        arrived(self)

    on_key, render_line = PromptInput._on_key, PromptInput.render_line
    submitted = _time_the_sends()

    async def keyed(self: PromptInput, event: Any) -> None:
        key = next((k for k in reversed(keys) if "start" not in k), None)
        if key is not None:
            key["start"] = time.perf_counter()
            state["painted"] = key  # (the prompt may paint before it returns)
        await on_key(self, event)
        if key is not None:
            key["handled"] = time.perf_counter()

    def rendered(self: PromptInput, y: int) -> Any:
        key = state["painted"]
        if key is not None and "painted" not in key:
            key["painted"] = time.perf_counter()
        return render_line(self, y)

    from textual.app import App

    display = App._display

    def displayed(self: App[Any], screen: Any, renderable: Any) -> None:
        started = time.perf_counter()
        display(self, screen, renderable)
        frames.append((started, time.perf_counter()))
        key = state["painted"]
        if key is not None and "painted" in key and "shown" not in key:
            key["shown"] = time.perf_counter()
            state["painted"] = None

    hold = getattr(typing_pace.TypingPace, "hold", None)
    if hold is not None:

        async def held(self: Any, timeout: float) -> None:
            started = time.perf_counter()
            await hold(self, timeout)
            holds.append((started, time.perf_counter()))

        typing_pace.TypingPace.hold = held  # type: ignore[method-assign]

    slow = _time_the_loop()
    _time_collections(slow)
    typing_pace.TypingPace.arrived = noted  # type: ignore[method-assign]
    PromptInput._on_key = keyed  # type: ignore[method-assign]
    PromptInput.render_line = rendered  # type: ignore[method-assign]
    App._display = displayed  # type: ignore[method-assign]

    def dump() -> None:
        Path(out).write_text(
            json.dumps({"keys": keys, "frames": frames, "holds": holds, "slow": slow, "submitted": submitted})
        )

    atexit.register(dump)
    import signal

    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))  # tmux kill-server: still dump


def _time_the_loop() -> list[tuple[float, float, str]]:
    """Loop callbacks and widget messages of 2 ms or more (start, end, what): what a key waits
    behind."""
    import asyncio.events

    slow: list[tuple[float, float, str]] = []
    run = asyncio.events.Handle._run

    def timed_run(self: Any) -> None:
        started = time.perf_counter()
        run(self)
        took = time.perf_counter() - started
        if took >= 0.002:
            slow.append((started, started + took, _what(self)))

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
    from textual.message_pump import MessagePump

    dispatch = MessagePump._dispatch_message

    async def dispatched(self: Any, message: Any) -> Any:
        started = time.perf_counter()
        try:
            return await dispatch(self, message)
        finally:
            took = time.perf_counter() - started
            if took >= 0.002:
                slow.append(
                    (started, started + took, f"message {type(self).__name__}: {type(message).__name__}")
                )

    MessagePump._dispatch_message = dispatched  # type: ignore[method-assign]
    return slow


def _time_the_sends() -> list[float]:
    """When the prompt sent its text (the keys before the first are the prompt's line)."""
    from auger.tui.widgets.prompt import PromptInput

    submitted: list[float] = []
    submit = PromptInput.action_submit

    def sent(self: PromptInput) -> None:
        submitted.append(time.perf_counter())
        submit(self)

    PromptInput.action_submit = sent  # type: ignore[method-assign]
    return submitted


def _time_collections(slow: list[tuple[float, float, str]]) -> None:
    """Garbage collections (any generation) into `slow` too, named by generation."""
    import gc

    began: list[float] = [0.0]

    def noted(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            slow.append((began[0], time.perf_counter(), f"gc generation {info['generation']}"))

    gc.callbacks.append(noted)


def _what(handle: Any) -> str:
    """A loop callback by what it runs: a task's coroutine where it is suspended, or the function."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro: Any = task.get_coro()
        frame = getattr(coro, "cr_frame", None)
        owner = frame.f_locals.get("self") if frame is not None else None
        names = [f"[{type(owner).__name__} {getattr(owner, 'name', '') or ''}]".replace(" ]", "]")]
        while coro is not None and len(names) < 6:
            names.append(getattr(coro, "__qualname__", type(coro).__name__))
            coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
        return " > ".join(names)
    return getattr(callback, "__qualname__", repr(callback))


def _run(out: str) -> int:
    _instrument(out)
    from auger.cli import main

    sys.argv = ["auger"]
    return int(main() or 0)


def _typed_while_busy(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace without the prompt's line, typed in one burst before the reply: only the keys
    that arrived after it was sent (the ones the bench times)."""
    if trace.get("submitted"):
        sent = trace["submitted"][0]
        trace["keys"] = [key for key in trace["keys"] if key["arrived"] > sent]
    return trace


def _phases(trace: dict[str, Any]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"loop": [], "handle": [], "paint": [], "frame": [], "total": []}
    for key in trace["keys"]:
        if not {"arrived", "start", "handled", "painted", "shown"} <= key.keys():
            continue
        out["loop"].append(key["start"] - key["arrived"])  # the loop reaching the prompt
        out["handle"].append(key["handled"] - key["start"])  # (a paint within it included)
        out["paint"].append(key["painted"] - key["start"])  # until a frame paints it
        out["frame"].append(key["shown"] - key["painted"])  # the rest of that frame
        out["total"].append(key["shown"] - key["arrived"])
    return out


def report(paths: list[Path], slowest: float = 0.0) -> None:
    phases: dict[str, list[float]] = {}
    holds: list[float] = []
    blockers: dict[str, float] = {}
    traces = [_typed_while_busy(json.loads(path.read_text())) for path in paths]
    for trace in traces:
        for key in trace["keys"]:
            if "start" not in key:
                continue
            for a, b, what in trace["slow"]:
                overlap = min(b, key["start"]) - max(a, key["arrived"])
                if overlap > 0:
                    blockers[what] = blockers.get(what, 0.0) + overlap
        for name, values in _phases(trace).items():
            phases.setdefault(name, []).extend(values)
        holds += [b - a for a, b in trace["holds"]]
    for name, values in phases.items():
        values.sort()
        if values:
            p95 = values[max(0, int(len(values) * 0.95) - 1)]
            print(
                f"  {name:<7} n={len(values):<4} p50 {statistics.median(values) * 1000:6.1f}  "
                f"p95 {p95 * 1000:6.1f}  max {values[-1] * 1000:6.1f} ms"
            )
    print("  what ran while keys waited for the loop (callbacks of 2 ms or more, total ms):")
    for what, total in sorted(blockers.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    {total * 1000:8.1f}  {what[:150]}")
    if holds:
        holds.sort()
        print(
            f"  holds   n={len(holds)} p50 {statistics.median(holds) * 1000:.1f}"
            f" max {holds[-1] * 1000:.1f} ms"
        )
    if slowest:
        _slowest(traces, slowest)


def _slowest(traces: list[dict[str, Any]], percent: float) -> None:
    """The slowest `percent` % of keys (arrived to shown), each with what ran meanwhile."""
    keys = [
        (trace, key)
        for trace in traces
        for key in trace["keys"]
        if {"arrived", "start", "painted", "shown"} <= key.keys()
    ]
    keys.sort(key=lambda tk: tk[1]["shown"] - tk[1]["arrived"])
    worst = keys[len(keys) - max(1, round(len(keys) * percent / 100)) :]
    totals: dict[str, float] = {}
    print(f"  the slowest {len(worst)} of {len(keys)} keys (arrived to shown; what ran meanwhile, ms):")
    for trace, key in worst:
        a0, a1 = key["arrived"], key["shown"]
        ran = []
        for a, b, what in trace["slow"]:
            overlap = min(b, a1) - max(a, a0)
            if overlap > 0:
                ran.append((overlap, what))
                totals[what] = totals.get(what, 0.0) + overlap
        frames = [b - a for a, b in trace["frames"] if a0 <= a <= a1]
        phases = (
            f"loop {1000 * (key['start'] - a0):.0f} paint {1000 * (key['painted'] - key['start']):.0f}"
            f" frame {1000 * (a1 - key['painted']):.0f}"
        )
        print(
            f"    {1000 * (a1 - a0):6.1f} ms ({phases}; {len(frames)} frames written, "
            f"{1000 * sum(frames):.0f} ms)"
        )
        for overlap, what in sorted(ran, reverse=True)[:4]:
            print(f"        {overlap * 1000:6.1f}  {what[:140]}")
    print("  over those keys, in total:")
    for what, total in sorted(totals.items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {total * 1000:8.1f}  {what[:150]}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        sys.exit(_run(sys.argv[2]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--build", default=sys.executable, help="the python of the build to trace")
    ap.add_argument("--rate", type=float, default=0.0, help="the reply paced at this many tok/s (0: fast)")
    ap.add_argument(
        "--slowest", type=float, default=0.0, help="also list what the slowest N%% of keys waited behind"
    )
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import bench_markdown
    from bench_tui import Env

    from llm_server import ScriptedLLM

    paths = []
    with ScriptedLLM() as llm:
        env = Env(llm)
        for index in range(args.rounds):
            out = env.tmp / f"trace-{index}.json"
            echoes = bench_markdown.echo_round(
                env, llm, f"{args.build} {Path(__file__).resolve()} run {out}", args.rate
            )
            deadline = time.monotonic() + 10
            while not out.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            paths.append(out)
            print(f"round {index}: {len(echoes)} keys, echo p50 {statistics.median(echoes) * 1000:.1f} ms")
    print(f"load {os.getloadavg()[0]:.2f}")
    report(paths, args.slowest)


if __name__ == "__main__":
    main()
