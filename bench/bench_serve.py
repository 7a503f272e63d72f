"""`auger serve` benchmark.

    python bench/bench_serve.py [--turns N] [--clients C]

Against the scripted OpenAI-compatible server (no artificial latency), prints:

* the added latency of a turn through the server vs in-process (median over N turns on one
  thread, native `/runs` endpoint via RemoteSession and the Vercel `/chat/stream`) — target ≤ 20 ms;
* C concurrent streaming clients (default 20) on different threads via `/chat/stream`, each
  checked for a complete part sequence — target: no errors;
* the server's RSS idle after start and after the load — target idle ≤ 150 MB;
* what one more thread costs: a Session on the shared Runtime (what the server does) vs a new
  Runtime (`open_session`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


AUGER = str(Path(sys.executable).with_name("auger"))
TOKEN = "bench-token-0123456789"
REPLY = {"text": "The answer is forty-two, streamed in a few chunks.", "repeat": True}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def ms(values: list[float]) -> str:
    p90 = sorted(values)[int(len(values) * 0.9) - 1]
    return f"{statistics.median(values) * 1000:7.1f} ms (p90 {p90 * 1000:.1f})"


async def interleaved(settings: Any, url: str, turns: int) -> tuple[list[float], list[float], list[float]]:
    """Per-turn wall time in-process, via RemoteSession (/runs) and via /chat/stream, measured in
    turn (one of each per round) so drift and noise hit all three alike."""
    import httpx

    from auger.core.port import TurnOptions
    from auger.core.runtime import open_session
    from auger.remote.client import RemoteSession

    local = await open_session(settings)
    remote = await RemoteSession.connect(url, TOKEN)
    client = httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    out: tuple[list[float], list[float], list[float]] = ([], [], [])
    rng = random.Random(8)

    async def turn(k: int, i: int) -> float:
        t0 = time.perf_counter()
        if k == 2:
            _, error = await chat(client, "bench-chat", f"question {i}")
            assert error is None, error
        else:
            async for _ in (local, remote)[k].send(f"question {i}", TurnOptions(settings.mode)):
                pass
        return time.perf_counter() - t0

    try:
        for i in range(turns + 3):  # the first rounds warm up (model build, first checkpoints)
            order = [0, 1, 2]
            rng.shuffle(order)  # no kind always runs first (or right after another)
            for k in order:
                elapsed = await turn(k, i)
                if i >= 3:
                    out[k].append(elapsed)
    finally:
        await client.aclose()
        await remote.aclose()
        await local.aclose()
    return out


async def thread_cost(settings: Any, n: int = 20) -> tuple[float, float, float]:
    """(ms per open_session, ms per Session on a shared Runtime, MB per open_session)."""
    from auger.core.runtime import open_session

    base = await open_session(settings)
    before = rss_mb(os.getpid())
    t0 = time.perf_counter()
    extra = [await open_session(settings) for _ in range(n)]
    full = (time.perf_counter() - t0) / n
    mb = (rss_mb(os.getpid()) - before) / n
    t0 = time.perf_counter()
    _ = [base.runtime.session(f"t{i}") for i in range(n)]
    light = (time.perf_counter() - t0) / n
    for s in [base, *extra]:
        await s.aclose()
    return full * 1000, light * 1000, mb


async def chat(client: Any, thread_id: str | None, text: str) -> tuple[float, str | None]:
    """One /chat/stream turn: (seconds, error or None)."""
    body: dict[str, Any] = {"messages": [{"role": "user", "parts": [{"type": "text", "text": text}]}]}
    if thread_id:
        body["thread_id"] = thread_id
    t0 = time.perf_counter()
    parts: list[Any] = []
    async with client.stream("POST", "/chat/stream", json=body) as resp:
        if resp.status_code != 200:
            return 0.0, f"HTTP {resp.status_code}: {(await resp.aread())[:200]!r}"
        async for line in resp.aiter_lines():
            if line.startswith("data: "):
                parts.append(line[6:])
    elapsed = time.perf_counter() - t0
    if parts[-1] != "[DONE]" or json.loads(parts[-2])["type"] != "finish":
        return elapsed, f"incomplete stream: {parts[-3:]}"
    deltas = "".join(json.loads(p).get("delta", "") for p in parts[:-1] if '"text-delta"' in p)
    if deltas != REPLY["text"]:
        return elapsed, f"wrong text: {deltas!r}"
    if any('"type":"error"' in p for p in parts):
        return elapsed, "error part"
    return elapsed, None


async def concurrent(url: str, clients: int, turns: int) -> tuple[float, list[str], list[float]]:
    import httpx

    headers = {"Authorization": f"Bearer {TOKEN}"}
    errors: list[str] = []
    latencies: list[float] = []

    async def one(k: int) -> None:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
            for i in range(turns):
                elapsed, error = await chat(client, f"load-{k}", f"client {k} turn {i}")
                latencies.append(elapsed)
                if error:
                    errors.append(f"client {k}: {error}")

    t0 = time.perf_counter()
    await asyncio.gather(*(one(k) for k in range(clients)))
    return time.perf_counter() - t0, errors, latencies


def start_server(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [AUGER, "serve", "--port", "0", "--token", TOKEN, "--mode", "yolo", "--no-mcp"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"listening on (http://\S+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"server did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
    return proc, match.group(1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=60)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--client-turns", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="auger-bench-serve-"))
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_"))}
    env.update(AUGER_HOME=str(home), HOME=str(tmp))
    os.environ.update(AUGER_HOME=str(home), HOME=str(tmp))
    script = tmp / "script.json"
    script.write_text(json.dumps([REPLY]))
    llm = subprocess.Popen(  # its own process: the in-process baseline does not share a GIL with it
        [sys.executable, str(HERE.parent / "tests/llm_server.py"), "--script", str(script), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert llm.stdout is not None
    port = llm.stdout.readline().strip().split("=")[1]
    try:
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "http://127.0.0.1:{port}/v1"\n'
            'models = ["scripted-model"]\n'
        )
        from auger.settings import load_settings

        settings = load_settings(cwd=project, flags={"mode": "yolo"})
        full_ms, light_ms, per_session_mb = asyncio.run(thread_cost(settings))
        proc, url = start_server(env, project)
        try:
            time.sleep(1.0)
            idle = rss_mb(proc.pid)
            local, remote, vercel = asyncio.run(interleaved(settings, url, args.turns))
            wall, errors, lat = asyncio.run(concurrent(url, args.clients, args.client_turns))
            loaded = rss_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(15)
    finally:
        llm.terminate()
        llm.wait(15)

    # added latency: the median of per-round differences (each round runs one turn of each kind,
    # so machine load hits them alike), and the difference of the fastest turns as a cross-check
    added_native = statistics.median(r - lo for r, lo in zip(remote, local, strict=True)) * 1000
    added_chat = statistics.median(c - lo for c, lo in zip(vercel, local, strict=True)) * 1000
    best_native, best_chat = (min(remote) - min(local)) * 1000, (min(vercel) - min(local)) * 1000
    n_turns = args.clients * args.client_turns
    ok_latency = max(added_native, added_chat) <= 20
    ok_idle = idle <= 150
    print("auger serve benchmark (scripted model, no artificial latency)")
    print(f"  turn in-process (Session.send)       {ms(local)}")
    print(f"  turn via server, native /runs        {ms(remote)}   added {added_native:+.1f} ms")
    print(f"  turn via server, /chat/stream        {ms(vercel)}   added {added_chat:+.1f} ms")
    print(
        f"  (added: median per-round difference, target ≤ 20 ms; fastest-turn difference "
        f"{best_native:+.1f} / {best_chat:+.1f} ms)"
    )
    print(
        f"  {args.clients} concurrent clients x {args.client_turns} turns  {n_turns} turns in {wall:.2f} s, "
        f"median {statistics.median(lat) * 1000:.0f} ms, errors {len(errors)}   target 0 errors"
    )
    for error in errors[:5]:
        print(f"    {error}")
    print(f"  server RSS idle                      {idle:7.1f} MB   target ≤ 150 MB")
    print(f"  server RSS after load                {loaded:7.1f} MB")
    print(
        f"  one more thread: a new Runtime {full_ms:.1f} ms + {per_session_mb:.2f} MB; "
        f"Runtime.session {light_ms * 1000:.0f} µs (the server's choice)"
    )
    ok = ok_latency and ok_idle and not errors
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
