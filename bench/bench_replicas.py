"""Two `auger serve` replicas on one PostgreSQL database under concurrent clients.

    python bench/bench_replicas.py [--url URL] [--clients 20] [--turns 5] [--shared 4]

Without --url a PostgreSQL server is started for the run (tests/pg_server.py); the model is the
scripted OpenAI-compatible server (tests/llm_server.py, no artificial latency). Two replicas,
each with its own AUGER_HOME (as on two machines), serve the same database.

* own threads: each client makes a thread and runs --turns turns on it, alternating replicas;
* shared threads: the clients run --turns turns each on --shared threads (several clients per
  thread, replicas alternating), so turns collide: a 409 (the thread is busy on this or the other
  replica) is an expected answer and the client tries again.

Then every thread's history is read back: a lost turn is a prompt that was accepted (its run
ended "done") but is missing from the thread. Targets (issue 15): 0 errors, 0 lost turns.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

AUGER = str(Path(sys.executable).with_name("auger"))
TOKEN = "bench-token-0123456789"
READY = re.compile(r"listening on (http://\S+)")


def start_replica(home: Path, project: Path, url: str) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_"))}
    env.update(AUGER_HOME=str(home), AUGER_DATABASE_URL=url, HOME=str(home.parent))
    proc = subprocess.Popen(
        [AUGER, "serve", "--port", "0", "--token", TOKEN, "--mode", "yolo"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if match := READY.search(line):
            return proc, match.group(1)
    raise SystemExit(f"replica in {home} did not start")


class Tally:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.busy = 0
        self.accepted: dict[str, list[str]] = {}  # thread -> prompts whose run ended "done"
        self.latency: list[float] = []


async def run_turn(client: Any, base: str, thread_id: str, prompt: str, tally: Tally) -> bool:
    """One run; True when it ended "done", False on a 409 (try again). Errors are tallied."""
    started = time.perf_counter()
    try:
        async with client.stream("POST", f"{base}/threads/{thread_id}/runs", json={"prompt": prompt}) as r:
            if r.status_code == 409:
                await r.aread()
                tally.busy += 1
                return False
            if r.status_code != 200:
                tally.errors.append(f"{prompt}: HTTP {r.status_code} {(await r.aread())[:200]!r}")
                return True
            last: dict[str, Any] = {}
            error: dict[str, Any] = {}
            async for line in r.aiter_lines():
                if line.startswith("data:"):
                    last = json.loads(line[5:])
                    error = last if last.get("type") == "error" else error
    except Exception as exc:  # a bench counts every failure
        tally.errors.append(f"{prompt}: {type(exc).__name__}: {exc}")
        return True
    if last.get("type") != "turn_ended" or last.get("reason") != "done":
        tally.errors.append(f"{prompt}: ended {last.get('reason')}: {error.get('message')}")
        return True
    tally.latency.append(time.perf_counter() - started)
    tally.accepted.setdefault(thread_id, []).append(prompt)
    return True


async def client_task(
    client: Any, bases: list[str], threads: list[str], k: int, *, turns: int, tally: Tally
) -> None:
    for i in range(turns):
        thread_id = threads[(k + i) % len(threads)]
        prompt = f"client {k} turn {i}"
        attempt = 0
        while not await run_turn(client, bases[(k + i + attempt) % 2], thread_id, prompt, tally):
            attempt += 1
            await asyncio.sleep(0.01 * min(attempt, 20))  # back off: the thread is busy


async def history_users(client: Any, base: str, thread_id: str) -> list[str]:
    resp = await client.get(f"{base}/threads/{thread_id}/messages")
    resp.raise_for_status()
    return [m["data"]["content"] for m in resp.json()["messages"] if m["type"] == "human"]


async def phase(bases: list[str], clients: int, turns: int, shared: int) -> tuple[Tally, float]:
    import httpx

    tally = Tally()
    limits = httpx.Limits(max_connections=clients * 2)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(headers=headers, timeout=120, limits=limits) as client:
        n_threads = shared or clients
        threads = []
        for j in range(n_threads):
            resp = await client.post(f"{bases[j % 2]}/threads", json={})
            resp.raise_for_status()
            threads.append(resp.json()["id"])
        started = time.perf_counter()
        await asyncio.gather(
            *(
                client_task(client, bases, threads if shared else [threads[k]], k, turns=turns, tally=tally)
                for k in range(clients)
            )
        )
        wall = time.perf_counter() - started
        for j, thread_id in enumerate(threads):
            saved = Counter(await history_users(client, bases[(j + 1) % 2], thread_id))
            for prompt in tally.accepted.get(thread_id, []):
                if saved[prompt] != 1:
                    tally.errors.append(f"lost turn: {prompt!r} saved {saved[prompt]} times in {thread_id}")
    return tally, wall


def report(name: str, tally: Tally, wall: float, expected: int) -> bool:
    done = sum(len(v) for v in tally.accepted.values())
    lat = sorted(tally.latency) or [float("nan")]
    print(
        f"{name:14} {done}/{expected} turns in {wall:5.1f} s, 409 retries {tally.busy},"
        f" errors {len(tally.errors)}, turn median {statistics.median(lat) * 1000:.0f} ms"
        f" (p90 {lat[int(len(lat) * 0.9) - 1] * 1000:.0f})"
    )
    for err in tally.errors[:10]:
        print("   ", err)
    return not tally.errors and done == expected


@contextlib.contextmanager
def database(url: str | None, folder: Path) -> Iterator[str]:
    if url:
        yield url
        return
    from pg_server import running

    with running(folder / "pg") as server:
        yield server.database()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an empty PostgreSQL database (default: start a server)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--shared", type=int, default=4, help="threads shared by the clients")
    args = parser.parse_args()

    from llm_server import ScriptedLLM

    ok = True
    with (
        tempfile.TemporaryDirectory(prefix="auger-replicas-") as tmp,
        ScriptedLLM([{"text": "Done, in a few words.", "repeat": True}]) as llm,
        database(args.url, Path(tmp)) as url,
    ):
        os.chmod(tmp, 0o755)
        project = Path(tmp) / "project"
        project.mkdir()
        replicas = []
        try:
            for name in ("a", "b"):
                home = Path(tmp) / f"home-{name}"
                home.mkdir()
                (home / "config.toml").write_text(
                    f'model = "local:m"\n[providers.local]\nbase_url = "{llm.base_url}"\nmodels = ["m"]\n'
                )
                replicas.append(start_replica(home, project, url))
            bases = [base for _, base in replicas]
            print(f"2 replicas on {url.split('@')[-1]}, {args.clients} clients x {args.turns} turns")
            expected = args.clients * args.turns
            tally, wall = asyncio.run(phase(bases, args.clients, args.turns, 0))
            ok &= report("own threads", tally, wall, expected)
            tally, wall = asyncio.run(phase(bases, args.clients, args.turns, args.shared))
            ok &= report(f"{args.shared} shared", tally, wall, expected)
        finally:
            for proc, _ in replicas:
                proc.terminate()
                proc.wait(30)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
