"""In-process half of bench_tui.py: the real app (headless) on the real Session, one mode per run.

    python bench/bench_tui_inproc.py stream TMPDIR TOKENS RATE   -> exact completeness + tok/s
    python bench/bench_tui_inproc.py turns TMPDIR N             -> RSS growth over N turns

TMPDIR is bench_tui.py's folder (home/, project/); a fresh scripted server is started here.
Prints one JSON object on the last line.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from auger.cli.agents import LocalOptions, local  # noqa: E402
from auger.settings import load_settings  # noqa: E402
from auger.tui import make_app  # noqa: E402
from auger.tui.app import AugerApp  # noqa: E402
from auger.tui.widgets.messages import AssistantMessage  # noqa: E402
from llm_server import _long_text  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Server:
    """The scripted server in its own process (in a thread it would compete for our GIL)."""

    def __init__(self, script: list[dict[str, object]], tmp: Path) -> None:
        path = tmp / "inproc_script.json"
        path.write_text(json.dumps(script))
        server = HERE.parent / "tests" / "llm_server.py"
        cmd = [sys.executable, str(server), "--script", str(path), "--port", "0"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        port = self.proc.stdout.readline().strip().removeprefix("PORT=")
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait()


def app_for(tmp: Path, llm: Server, extra: str = "") -> AugerApp:
    home, project = tmp / "home", tmp / "project"
    (home / "config.toml").write_text(
        f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n{extra}'
    )
    env = {"AUGER_HOME": str(home), "HOME": str(tmp)}
    return make_app(load_settings(cwd=project, env=env), local(LocalOptions(use_mcp=False)))


async def until(pilot: object, cond: object, timeout: float = 600) -> None:
    """Poll `cond` without Pilot.pause (which touches every widget on screen: O(DOM) per poll)."""
    deadline = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.005)


async def delivered(tmp: Path, tokens: int, rate: float) -> float:
    """Tokens per second the Session alone (no UI) gets from the server: the stream's real rate."""
    from auger.core.port import TurnOptions
    from auger.core.runtime import open_session

    with Server([{"text": "Stream start.\n\n", "text_tokens": tokens, "rate": rate}], tmp) as llm:
        app_for(tmp, llm)  # writes the config
        env = {"AUGER_HOME": str(tmp / "home"), "HOME": str(tmp)}
        session = await open_session(load_settings(cwd=tmp / "project", env=env))
        try:
            t0 = time.perf_counter()
            async for _ in session.send("stream please", TurnOptions("yolo")):
                pass
            return tokens / (time.perf_counter() - t0)
        finally:
            await session.aclose()


async def stream(tmp: Path, tokens: int, rate: float) -> dict[str, object]:
    head = "Stream start.\n\n"
    expected = head + "".join(_long_text(tokens))
    with Server([{"text": head, "text_tokens": tokens, "rate": rate}], tmp) as llm:
        app = app_for(tmp, llm)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.session is not None)  # the boot worker is done
            app.prompt.load_text("stream please")
            t0 = time.perf_counter()
            app.prompt.action_submit()
            await until(pilot, lambda: app.turns and not app.busy)
            took = time.perf_counter() - t0
            message = app.transcript.query(AssistantMessage).last()
            rendered = message.source  # what the widgets hold
            segments = len(message.segments)
    return {
        "delivered_tok_per_s": await delivered(tmp, tokens, rate),
        "complete": rendered == expected and message.text == expected,
        "chars": len(expected),
        "segments": segments,
        "turn_s": took,
        "rendered_tok_per_s": tokens / took,
    }


def gc_pauses() -> list[float]:
    """Durations (s) of full collections, recorded from now on."""
    import gc

    pauses: list[float] = []
    started: list[float] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append(time.perf_counter() - started.pop())

    gc.callbacks.append(watch)
    return pauses


async def turns(tmp: Path, n: int, prune_after: int | None = None) -> dict[str, object]:
    pauses = gc_pauses()
    extra = f"[tui]\nprune_after = {prune_after}\n" if prune_after else ""
    with Server([{"text": "Short answer with `code` and **bold**.", "repeat": True}], tmp) as llm:
        app = app_for(tmp, llm, extra)
        samples: dict[int, float] = {}
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.session is not None)  # the boot worker is done
            t0 = time.perf_counter()
            for i in range(1, n + 1):
                app.prompt.load_text(f"turn {i}")
                app.prompt.action_submit()
                await until(pilot, lambda i=i: app.turns >= i and not app.busy)
                if i in (1, 10, 100) or i % 250 == 0 or i == n:
                    samples[i] = rss_mb()
            took = time.perf_counter() - t0
            widgets = len(list(app.query("*")))
    base = samples[10] if 10 in samples else samples[1]
    return {
        "turns": n,
        "rss_after_1_mb": samples[1],
        "rss_after_10_mb": samples.get(10, samples[1]),
        f"rss_after_{n}_mb": samples[n],
        "growth_mb": samples[n] - base,
        "growth_from_turn_1_mb": samples[n] - samples[1],
        "seconds_per_turn": took / n,
        "dom_widgets_at_end": widgets,
        "full_gc_runs": len(pauses),
        "full_gc_max_ms": max(pauses, default=0.0) * 1000,
    }


def main() -> None:
    mode, tmp = sys.argv[1], Path(sys.argv[2])
    if mode == "stream":
        result = asyncio.run(stream(tmp, int(sys.argv[3]), float(sys.argv[4])))
    else:
        budget = int(sys.argv[4]) if len(sys.argv) > 4 else None
        result = asyncio.run(turns(tmp, int(sys.argv[3]), budget))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
