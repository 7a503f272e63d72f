"""Threads at scale: list, search, resume, fork, and DB bytes per turn.

    python bench/bench_threads.py [--dir DIR] [--runs 7]

DIR (default /tmp/auger-bench-threads) holds the database built by gen_threads_db.py (10,000
threads, ~200,000 messages, one thread of ~2,000 messages); it is built on first use (~2 min,
~6 GB: LangGraph's checkpoints of 10,000 real five-turn threads) and reused afterwards.

Targets (issue 4): `auger threads list` <= 200 ms wall, search <= 300 ms, resuming the
2,000-message thread <= 1 s until its history is available. Wall times are medians of `--runs`
runs of the real `auger` command after one warm-up run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

AUGER = str(Path(sys.executable).with_name("auger"))
RESUME_SNIPPET = """
import asyncio, json, sys, time
t0 = time.perf_counter()
from auger.core.runtime import open_session
from auger.settings import load_settings
t1 = time.perf_counter()
async def main():
    session = await open_session(load_settings())
    t2 = time.perf_counter()
    await session.open_thread(sys.argv[1])
    history = await session.history()
    t3 = time.perf_counter()
    await session.aclose()
    return t2, t3, len(history), session.model_spec, session.context_tokens
t2, t3, n, model, tokens = asyncio.run(main())
print(json.dumps({"import": t1 - t0, "build": t2 - t1, "open+history": t3 - t2, "total": t3 - t0,
                  "messages": n, "model": model, "context_tokens": tokens}))
"""

HISTORY_SNIPPET = """
import asyncio, json, sys, time
from auger.core.threads.history import read_history
from auger.paths import auger_home, threads_db
t0 = time.perf_counter()
history = asyncio.run(read_history(threads_db(auger_home()), sys.argv[1]))
print(json.dumps({"read": time.perf_counter() - t0, "messages": len(history)}))
"""


def wall(cmd: list[str], env: dict[str, str], cwd: str, runs: int) -> tuple[float, str]:
    """Median wall seconds over `runs` (after a warm-up) and the last stdout."""
    times, out = [], ""
    for i in range(runs + 1):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr}")
        out = proc.stdout
        if i:
            times.append(elapsed)
    return statistics.median(times), out


def line(name: str, seconds: float, target: float | None = None, note: str = "") -> None:
    verdict = "" if target is None else ("ok" if seconds <= target else "OVER")
    goal = f"(target {target * 1000:.0f} ms {verdict})" if target else ""
    print(f"  {name:<46} {seconds * 1000:8.1f} ms  {goal} {note}".rstrip())


async def in_process_resume(home: Path, project: str, big: str, runs: int) -> float:
    """The TUI's path: the agent is already built; switch to the big thread and read its history."""
    from auger.core.runtime import open_session
    from auger.settings import load_settings

    session = await open_session(load_settings(cwd=Path(project), env={"AUGER_HOME": str(home)}))
    try:
        times = []
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            await session.open_thread(big)
            history = await session.history()
            times.append(time.perf_counter() - t0)
            assert len(history) >= 2000, len(history)
        return statistics.median(times[1:])
    finally:
        await session.aclose()


def _groups(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = conn.execute("SELECT name, sum(payload) FROM dbstat GROUP BY name").fetchall()
    finally:
        conn.close()
    out = {"langgraph": 0, "auger": 0, "other": 0}
    for name, size in rows:
        if name.startswith(
            ("checkpoints", "writes", "sqlite_autoindex_checkpoints", "sqlite_autoindex_writes")
        ):
            group = "langgraph"
        elif name.startswith(("auger", "sqlite_autoindex_auger")):
            group = "auger"
        else:
            group = "other"
        out[group] += int(size)
    out["file"] = db.stat().st_size
    return out


async def bytes_per_turn(turns: int = 20) -> dict[str, float]:
    """DB bytes a simple turn (a one-line prompt, a one-line reply) adds: payload bytes by owner
    (tables + indexes, from dbstat) and the file's growth."""
    from auger.core.port import TurnOptions, headless_policy
    from auger.core.runtime import open_session
    from auger.settings import load_settings
    from llm_server import ScriptedLLM

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM() as llm:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        settings = load_settings(cwd=project, env={"AUGER_HOME": str(home)})
        session = await open_session(settings)
        options = TurnOptions(settings.mode, approval=headless_policy)
        try:
            llm.add(*[{"text": f"Sure, here is answer number {i}."} for i in range(turns + 1)])
            async for _ in session.send("hello, a first question", options):
                pass
            before = _groups(home / "threads.db")
            for i in range(turns):
                async for _ in session.send(f"a simple question number {i}?", options):
                    pass
            after = _groups(home / "threads.db")
        finally:
            await session.aclose()
    return {k: (after[k] - before[k]) / turns for k in after}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "auger-bench-threads")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    if not (args.dir / "bench.json").exists():
        from gen_threads_db import generate

        print(f"building the database in {args.dir} (once) ...", flush=True)
        asyncio.run(generate(args.dir, 10_000, 20, 2_000))
    info: dict[str, Any] = json.loads((args.dir / "bench.json").read_text())
    home, project, big = Path(info["home"]), info["projects"][0], info["big_thread"]
    env = {**os.environ, "AUGER_HOME": str(home)}
    counts = info["counts"]
    print(
        f"DB: {counts['threads']:,} threads, {counts['messages']:,} messages, {counts['checkpoints']:,} "
        f"checkpoints, {counts['writes']:,} writes; {(home / 'threads.db').stat().st_size / 1e9:.2f} GB"
    )
    run = [AUGER, "threads"]
    print("wall time of the `auger` command (median):")
    seconds, out = wall([*run, "list"], env, project, args.runs)
    line("threads list (this project)", seconds, 0.2, f"{out.count(chr(10))} lines")
    seconds, _ = wall([*run, "list", "--all"], env, project, args.runs)
    line("threads list --all", seconds, 0.2)
    seconds, out = wall([*run, "list", "--all", "--json"], env, project, args.runs)
    line("threads list --all --json", seconds, 0.2, f"{len(json.loads(out))} threads")
    seconds, out = wall([*run, "list", "--all", "--limit", "0", "--json"], env, project, args.runs)
    line("threads list --all --limit 0 --json", seconds, None, f"{len(json.loads(out)):,} threads")
    for label, query, scope in (
        ("rare word", info["rare_word"], "--all"),
        ("common word", info["common_word"], "--all"),
        ("two common words", f"{info['common_word']} test", "--all"),
        ("common word, this project", info["common_word"], None),
    ):
        cmd = [*run, "list", "--json", "--search", query, *([scope] if scope else [])]
        seconds, out = wall(cmd, env, project, args.runs)
        line(f"search: {label}", seconds, 0.3, f"{len(json.loads(out))} threads shown")
    seconds, out = wall([*run, "show", big[:8]], env, project, max(3, args.runs // 2))
    line("threads show <2,000-message thread>", seconds, None, f"{out.count(chr(10)):,} lines")
    conn = sqlite3.connect(home / "threads.db")
    turns = conn.execute(
        "SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND CAST(metadata AS TEXT) LIKE ?",
        (big, '%"source": "input"%'),
    ).fetchone()[0]
    conn.close()
    fork_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fork = subprocess.run(
            [*run, "fork", big, "--at", str(turns // 2)], env=env, cwd=project, capture_output=True, text=True
        )
        fork_times.append(time.perf_counter() - t0)
        assert fork.returncode == 0, fork.stderr
        subprocess.run(
            [*run, "delete", fork.stdout.strip()], env=env, cwd=project, check=True, capture_output=True
        )
    line(f"threads fork <2,000-message thread> --at {turns // 2}", statistics.median(fork_times))

    print("resume of the 2,000-message thread until its history is available:")
    seconds, out = wall([sys.executable, "-c", RESUME_SNIPPET, big], env, project, max(3, args.runs // 2))
    parts = json.loads(out)
    line("cold process (imports + agent + history)", seconds, None, f"{parts['messages']} messages")
    line("  of which: open_thread + history", parts["open+history"], 1.0)
    line("  of which: building the agent", parts["build"])
    line("  of which: imports", parts["import"])
    seconds, out = wall([sys.executable, "-c", HISTORY_SNIPPET, big], env, project, max(3, args.runs // 2))
    parts = json.loads(out)
    line("cold process, read_history (no agent)", seconds, 1.0, f"{parts['messages']} messages")
    line("  of which: read_history", parts["read"])
    warm = asyncio.run(in_process_resume(home, project, big, args.runs))
    line("in-process (agent built): open_thread + history", warm, 1.0)

    per_turn = asyncio.run(bytes_per_turn())
    print("DB bytes added per simple turn (one-line prompt, one-line reply):")
    for key, label in (
        ("langgraph", "LangGraph checkpoints + writes (payload)"),
        ("auger", "auger threads + search index (payload)"),
        ("file", "threads.db file growth"),
    ):
        print(f"  {label:<46} {per_turn[key]:10,.0f} bytes")


if __name__ == "__main__":
    main()
