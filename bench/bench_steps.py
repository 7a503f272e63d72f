"""What each agent step costs auger, and whether it grows with the work (issue 16, items 1-2).

    python bench/bench_steps.py [--rounds 5] [--long 300] [--turns 300] [--profile FILE]

A Session in this process against the scripted OpenAI-compatible server in ANOTHER process (no
artificial latency), so this process's CPU time (`time.process_time`, all its threads) is
auger's own work plus the SDKs it drives, never the model's.

* machine: the CPU time of a fixed pure-Python workload, so figures taken on different machines
  (sessions here get new ones) can be set side by side.
* per step: paired rounds of a 1-call turn and a 20-call turn (each on a new thread; the model
  calls `ls /` then answers); per step = (20-call CPU - 1-call CPU) / 19, median over rounds.
  Target ≤ 15 ms.
* long turn: one turn of `--long` tool calls; auger's time between model calls (from the end of
  the server's answer to the next request's arrival, so the server's own parsing of ever longer
  requests is left out) around step 15 and step ~280 (medians of 11 gaps). Target: ≤ 1.25× apart.
  Also printed: the request-to-request ratio, the server's time included.
* long thread: `--turns` one-call turns on one thread; auger CPU of turns 6-15 vs the last 10
  (medians). Target: ≤ 1.25× apart. Also the ratio of the lower quartiles of turns 6-25 and the
  last 20 (a busy machine only adds time: steadier when other work shares the cores).

`--profile FILE` writes a cProfile of the 20-call turns (pstats; read it with
`python -m pstats FILE`), timed in CPU seconds, so waiting for the server counts for nothing.

`--baseline OTHER/src` pairs this checkout with another build's sources in the same run: `--pairs`
times, each build in a process of its own (imported from its `src` through PYTHONPATH; which goes
first alternates), then both builds' medians and their ratio per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVER = HERE.parent / "tests" / "llm_server.py"
LS = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}


def _turn_script(calls: int) -> list[dict[str, Any]]:
    return [LS] * calls + [{"text": "done"}]


class Server:
    """tests/llm_server.py in its own process, serving `script` in order."""

    def __init__(self, script: list[dict[str, Any]], tmp: Path) -> None:
        (tmp / "script.json").write_text(json.dumps(script))
        self.log = tmp / "times.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--script", str(tmp / "script.json"), "--times", str(self.log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline().strip().split("=")[1])

    def times(self) -> list[tuple[float, float]]:
        """(received, answered) of each model call, in order."""
        pairs = (line.split() for line in self.log.read_text().splitlines())
        return sorted((float(a), float(b)) for a, b in pairs)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


async def _session(tmp: Path, port: int) -> Any:
    from auger.core.runtime import open_session
    from auger.settings import load_settings

    home, project = tmp / "home", tmp / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "local:scripted-model"\n[providers.local]\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'models = ["scripted-model"]\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUGER_")}
    env.update(AUGER_HOME=str(home), HOME=str(tmp))
    settings = load_settings(cwd=project, env=env, flags={"mode": "yolo", "max_turns": 10_000})
    return await open_session(settings)


async def _turn(session: Any, prompt: str = "bench") -> float:
    """auger CPU seconds of one turn."""
    from auger.core.port import TurnOptions

    cpu = time.process_time()
    async for event in session.send(prompt, TurnOptions("yolo")):
        if type(event).__name__ == "Error":
            raise RuntimeError(f"turn failed: {event}")
    return time.process_time() - cpu


def _median_gap(times: list[tuple[float, float]], at: int, *, own: bool) -> float:
    """Median of the 11 gaps around call `at`: from one request to the next, or (`own`) from the
    end of one answer to the next request, auger's own time (the server's parsing and logging of
    ever longer requests left out)."""
    gaps = [b[0] - (a[1] if own else a[0]) for a, b in itertools.pairwise(times)]
    window = gaps[max(0, at - 5) : at + 6]
    return statistics.median(window)


async def per_step(rounds: int, profile: str | None) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="auger-steps-"))
    script = [item for _ in range(rounds + 1) for item in (*_turn_script(1), *_turn_script(20))]
    server = Server(script, tmp)
    prof = cProfile.Profile(time.process_time) if profile else None
    session = await _session(tmp, server.port)
    try:
        one, twenty = [], []
        for i in range(rounds + 1):  # round 0 warms up
            await session.open_thread(None)
            a = await _turn(session)
            await session.open_thread(None)
            if prof and i:
                prof.enable()
            b = await _turn(session)
            if prof and i:
                prof.disable()
            if i:
                one.append(a)
                twenty.append(b)
    finally:
        await session.aclose()
        server.stop()
    if prof and profile:
        prof.dump_stats(profile)
    steps = [(b - a) / 19 for a, b in zip(one, twenty, strict=True)]
    return {"one_call_ms": statistics.median(one) * 1e3, "per_step_ms": statistics.median(steps) * 1e3}


async def long_turn(calls: int) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="auger-long-turn-"))
    server = Server(_turn_script(calls), tmp)
    session = await _session(tmp, server.port)
    try:
        cpu = await _turn(session)
    finally:
        await session.aclose()
        server.stop()
    times = server.times()
    early, late = _median_gap(times, 15, own=True), _median_gap(times, calls - 20, own=True)
    raw = _median_gap(times, calls - 20, own=False) / _median_gap(times, 15, own=False)
    return {
        "early_ms": early * 1e3,
        "late_ms": late * 1e3,
        "ratio": late / early,
        "raw_ratio": raw,
        "cpu_s": cpu,
    }


async def long_thread(turns: int, profile: str | None = None) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="auger-long-thread-"))
    server = Server([item for _ in range(turns) for item in _turn_script(1)], tmp)
    session = await _session(tmp, server.port)
    # with `profile`: turns 6-15 and the last 10, each profiled into its own file (.early, .late)
    profs = {"early": range(5, 15), "late": range(turns - 10, turns)} if profile else {}
    prof = {name: cProfile.Profile(time.process_time) for name in profs}
    try:
        costs = []
        for i in range(turns):
            on = [prof[name] for name, at in profs.items() if i in at]
            for p in on:
                p.enable()
            costs.append(await _turn(session, f"bench turn {i}"))
            for p in on:
                p.disable()
    finally:
        await session.aclose()
        server.stop()
    for name, p in prof.items():
        p.dump_stats(f"{profile}.{name}")
    early, late = statistics.median(costs[5:15]), statistics.median(costs[-10:])
    # load only adds time: the lower quartiles of 20 turns each are steadier on a busy machine
    low_early, low_late = _quartile(costs[5:25]), _quartile(costs[-20:])
    return {
        "turn_10_ms": early * 1e3,
        "last_ms": late * 1e3,
        "ratio": late / early,
        "low_ratio": low_late / low_early,
    }


def _quartile(costs: list[float]) -> float:
    return statistics.quantiles(costs, n=4)[0]


FIGURES = {  # figure: (result key, unit, digits)
    "machine (fixed Python workload)": ("machine_ms", "ms", 1),
    "per step": ("per_step_ms", "ms", 1),
    "1-call turn": ("one_call_ms", "ms", 0),
    "long turn, step -20 / 15": ("turn_ratio", "×", 2),
    "  request to request": ("turn_raw_ratio", "×", 2),
    "long turn CPU": ("turn_cpu_s", "s", 2),
    "turn 10": ("turn_10_ms", "ms", 0),
    "last turns": ("last_ms", "ms", 0),
    "long thread, last / turn 10": ("ratio", "×", 2),
    "lower quartiles, last / turns 6-25": ("low_ratio", "×", 2),
}


def machine_ms() -> float:
    """CPU ms of a fixed pure-Python workload (calls, dict lookups, JSON; the best of 5): per-step
    figures from different machines compare only through it."""
    data = [{"role": "tool", "content": "x" * 200, "n": i, "ids": list(range(10))} for i in range(2000)]

    def weight(item: dict[str, Any]) -> int:
        return item["n"] + len(item["content"]) + sum(item["ids"])

    best = float("inf")
    for _ in range(5):
        cpu = time.process_time()
        sum(map(weight, data * 5))
        json.loads(json.dumps(data))
        best = min(best, time.process_time() - cpu)
    return best * 1e3


async def measure(args: argparse.Namespace) -> dict[str, float]:
    """Every figure the arguments ask for (the long turn's keys prefixed `turn_`)."""
    out = {"machine_ms": machine_ms(), **await per_step(args.rounds, args.profile)}
    if args.long:
        out.update({f"turn_{key}": value for key, value in (await long_turn(args.long)).items()})
    if args.turns:
        out.update(await long_thread(args.turns, args.profile_thread))
    return out


def paired(args: argparse.Namespace) -> None:
    """Each build `--pairs` times in a process of its own, the order alternating."""
    builds = {"baseline": str(Path(args.baseline).resolve()), "this": str(HERE.parent / "src")}
    child = [sys.executable, __file__, "--json", f"--rounds={args.rounds}", f"--long={args.long}"]
    child.append(f"--turns={args.turns}")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in builds}
    for i in range(args.pairs):
        for name in sorted(builds, reverse=bool(i % 2)):
            env = {**os.environ, "PYTHONPATH": builds[name]}
            proc = subprocess.run(child, env=env, capture_output=True, text=True, check=True)
            results[name].append(json.loads(proc.stdout.splitlines()[-1]))
            print(f"pair {i + 1} {name}: {results[name][-1]}", flush=True)
    print(f"\n{'figure':<36} {'baseline':>10} {'this':>10} {'this/baseline':>14}  (medians of {args.pairs})")
    for label, (key, unit, digits) in FIGURES.items():
        if key not in results["this"][0]:
            continue
        base, this = (statistics.median(r[key] for r in results[name]) for name in builds)
        print(f"{label:<36} {base:>9.{digits}f}{unit} {this:>9.{digits}f}{unit} {this / base:>13.3f}")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--long", type=int, default=300, help="tool calls of the long turn (0: skip)")
    ap.add_argument("--turns", type=int, default=300, help="turns of the long thread (0: skip)")
    ap.add_argument("--profile", help="write a cProfile of the 20-call turns here")
    ap.add_argument(
        "--profile-thread",
        help="write cProfiles of the long thread's turns 6-15 / last 10 to FILE.early / .late",
    )
    ap.add_argument("--baseline", help="another build's src folder, measured in the same run")
    ap.add_argument("--pairs", type=int, default=4, help="runs of each build with --baseline")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = ap.parse_args()
    if args.baseline:
        return paired(args)
    if args.json:
        return print(json.dumps(await measure(args)))
    r = await measure(args)
    print(
        f"per step: {r['per_step_ms']:.1f} ms auger CPU (1-call turn {r['one_call_ms']:.0f} ms); "
        f"target ≤ 15 ms; this machine's fixed Python workload {r['machine_ms']:.1f} ms"
    )
    if args.long:
        print(
            f"long turn ({args.long} calls): gap between model calls {r['turn_early_ms']:.1f} ms at "
            f"step 15, {r['turn_late_ms']:.1f} ms at step {args.long - 20}: {r['turn_ratio']:.2f}× "
            f"(target ≤ 1.25×); request to request {r['turn_raw_ratio']:.2f}×; "
            f"turn CPU {r['turn_cpu_s']:.1f} s"
        )
    if args.turns:
        print(
            f"long thread ({args.turns} turns): auger CPU per turn {r['turn_10_ms']:.0f} ms at turn 10, "
            f"{r['last_ms']:.0f} ms at the end: {r['ratio']:.2f}× (target ≤ 1.25×); "
            f"lower quartiles of turns 6-25 and the last 20: {r['low_ratio']:.2f}×"
        )


if __name__ == "__main__":
    asyncio.run(main())
