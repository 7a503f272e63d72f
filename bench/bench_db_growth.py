"""How many bytes a turn adds to the thread database, and what they are.

    python bench/bench_db_growth.py [--turns 20] [--breakdown]

Real Sessions (the deepagents graph, the checkpointer, the turn hooks) against the scripted
OpenAI-compatible server, in a fresh AUGER_HOME:

* simple turns: a one-line prompt, a one-line reply;
* tool turns: a prompt, one `read_file` call on a small README, a one-line reply.

After a first turn (which creates the tables), `--turns` more turns run in one thread; the
figures are per turn: payload bytes by owner (tables + their indexes, from SQLite's `dbstat`)
and the growth of the file itself (after a WAL checkpoint). `--breakdown` also prints, for the
last turn, each main-graph checkpoint it left and the bytes of each channel stored in it.

`--postgres URL` runs the same turns with `database_url` = URL (auger's runtime on PostgreSQL:
AsyncPostgresSaver, the thread store, the collapse of finished turns; a fresh database is best),
or `--postgres auto` on a server started for the run (tests/pg_server.py, a new database per
run), and reports the growth of LangGraph's and auger's tables (`pg_total_relation_size`: heap,
TOAST, indexes; after VACUUM FULL, so deleted rows do not count); `--no-collapse` measures the
same with the collapse left out (the ThreadIndex without the graph), for the figure before it.

Target (issue 15): a simple turn adds <= 10 KB.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

TARGET = 10_000


def groups(db: Path) -> dict[str, int]:
    """Payload bytes of LangGraph's tables, auger's tables, and the file size."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        owner = dict(conn.execute("SELECT name, tbl_name FROM sqlite_master").fetchall())
    finally:
        conn.close()
    out: Counter[str] = Counter()
    for name, size in rows:
        table = owner.get(name, name)
        if table in ("checkpoints", "writes"):
            out[table] += int(size)
        elif str(table).startswith("auger_"):
            out["auger"] += int(size)
    out["file"] = db.stat().st_size
    return dict(out)


def counts(db: Path, thread_id: str) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        (ckpts,) = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = ?", (thread_id,)
        ).fetchone()
        (writes,) = conn.execute("SELECT count(*) FROM writes WHERE thread_id = ?", (thread_id,)).fetchone()
    finally:
        conn.close()
    return {"checkpoints": ckpts, "writes": writes}


def breakdown(db: Path, thread_id: str, since: str) -> list[str]:
    """Per checkpoint of the last turn: its size and the serialized size of each channel it stores."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    serde = JsonPlusSerializer()
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT checkpoint_id, checkpoint_ns, type, checkpoint, metadata FROM checkpoints"
            " WHERE thread_id = ? AND checkpoint_id > ? ORDER BY checkpoint_id",
            (thread_id, since),
        ).fetchall()
        wrows = conn.execute(
            "SELECT checkpoint_id, channel, length(value) FROM writes"
            " WHERE thread_id = ? AND checkpoint_id > ?",
            (thread_id, since),
        ).fetchall()
    finally:
        conn.close()
    writes: dict[str, Counter[str]] = {}
    for cid, channel, size in wrows:
        writes.setdefault(cid, Counter())[channel] += size
    out = []
    for cid, ns, type_, blob, meta in rows:
        ckpt = serde.loads_typed((type_, blob))
        sizes = {k: len(serde.dumps_typed(v)[1]) for k, v in ckpt["channel_values"].items()}
        top = ", ".join(f"{k}={v:,}" for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])[:8])
        versions = len(serde.dumps_typed(ckpt["channel_versions"])[1]) + len(
            serde.dumps_typed(ckpt["versions_seen"])[1]
        )
        w = writes.get(cid, Counter())
        out.append(
            f"  {cid[-12:]} ns={ns or '-':<10.10} blob={len(blob):7,} meta={len(meta or b''):5,}"
            f" versions={versions:5,} writes={sum(w.values()):6,}\n      channels: {top}"
        )
    return out


async def run(kind: str, turns: int, show: bool) -> dict[str, Any]:
    from auger.core.port import TurnOptions, headless_policy
    from auger.core.runtime import open_session
    from auger.settings import load_settings
    from llm_server import ScriptedLLM

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM() as llm:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (project / "README.md").write_text("# demo\n\nA small project for the growth benchmark.\n")
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        settings = load_settings(cwd=project, env={"AUGER_HOME": str(home)}, flags={"mode": "yolo"})
        session = await open_session(settings)
        options = TurnOptions(settings.mode, approval=headless_policy)
        db = home / "threads.db"

        def script(i: int) -> None:
            if kind == "tool":
                llm.add({"tool_calls": [{"name": "read_file", "args": {"file_path": "/README.md"}}]})
            llm.add({"text": f"Sure, here is answer number {i}."})

        async def turn(i: int) -> None:
            script(i)
            async for _ in session.send(f"a simple question number {i}?", options):
                pass

        try:
            await turn(0)
            before, n_before = groups(db), counts(db, session.thread_id)
            for i in range(1, turns):
                await turn(i)
            mark = max_checkpoint(db, session.thread_id)
            await turn(turns)
            after, n_after = groups(db), counts(db, session.thread_id)
            detail = breakdown(db, session.thread_id, mark) if show else []
        finally:
            await session.aclose()
    per = {k: (after.get(k, 0) - before.get(k, 0)) / turns for k in after}
    per.update({f"n_{k}": (n_after[k] - n_before[k]) / turns for k in n_after})
    per["detail"] = detail
    return per


PG_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def pg_sizes(url: str) -> dict[str, int]:
    """Bytes of LangGraph's three tables and of auger's (all of them together), indexes included,
    after VACUUM FULL: what the rows left take once (auto)vacuum lets new rows reuse the space of
    the deleted ones (without it a table keeps every row ever written until then)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM FULL")
        sizes = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema()"
        ).fetchall()
        main, rows = conn.execute(
            "SELECT count(*) FILTER (WHERE checkpoint_ns = ''), count(*) FROM checkpoints"
        ).fetchone() or (0, 0)
    out = {table: 0 for table in PG_TABLES} | {"auger": 0}
    for name, size in sizes:
        key = name if name in PG_TABLES else "auger" if name.startswith("auger_") else None
        if key is not None:
            out[key] += int(size)
    return out | {"n_main": int(main), "n_all": int(rows)}


async def run_postgres(kind: str, turns: int, url: str, *, collapse: bool = True) -> dict[str, float]:
    """The same turns with auger's runtime on PostgreSQL (`database_url`)."""
    from auger.core.port import TurnOptions, headless_policy
    from auger.core.runtime import open_runtime
    from auger.core.threads.index import ThreadIndex
    from auger.settings import load_settings
    from llm_server import ScriptedLLM

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM() as llm:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (project / "README.md").write_text("# demo\n\nA small project for the growth benchmark.\n")
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        env = {"AUGER_HOME": str(home), "AUGER_DATABASE_URL": url}
        settings = load_settings(cwd=project, env=env, flags={"mode": "yolo"})
        options = TurnOptions(settings.mode, approval=headless_policy)
        async with open_runtime(settings) as rt:
            if not collapse:  # the index without the graph: nothing is collapsed
                rt = dataclasses.replace(rt, index=ThreadIndex(rt.threads, settings))
            session = rt.session()

            async def turn(i: int) -> None:
                if kind == "tool":
                    llm.add({"tool_calls": [{"name": "read_file", "args": {"file_path": "/README.md"}}]})
                llm.add({"text": f"Sure, here is answer number {i}."})
                async for _ in session.send(f"a simple question number {i}?", options):
                    pass

            await turn(0)
            before = pg_sizes(url)
            for i in range(1, turns + 1):
                await turn(i)
            after = pg_sizes(url)
    return {k: (after[k] - before[k]) / turns for k in after}


def max_checkpoint(db: Path, thread_id: str) -> str:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?", (thread_id,)
        ).fetchone()
    finally:
        conn.close()
    return str(row[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument(
        "--postgres", metavar="URL", help="auger's runtime on PostgreSQL at URL ('auto': a new server)"
    )
    ap.add_argument("--no-collapse", action="store_true", help="with --postgres: leave the turns as saved")
    args = ap.parse_args()
    if args.postgres:
        postgres(args.postgres, args.turns, collapse=not args.no_collapse)
        return
    for kind, label in (
        ("simple", "simple turn (one-line prompt and reply)"),
        ("tool", "tool turn (read_file)"),
    ):
        per = asyncio.run(run(kind, args.turns, args.breakdown))
        total = per["checkpoints"] + per["writes"] + per["auger"]
        verdict = (
            "" if kind != "simple" else f"  (target {TARGET:,}: {'ok' if per['file'] <= TARGET else 'OVER'})"
        )
        print(f"{label}, mean of {args.turns} turns in one thread:")
        print(
            f"  checkpoints table        {per['checkpoints']:10,.0f} bytes  ({per['n_checkpoints']:.1f} rows)"
        )
        print(f"  writes table             {per['writes']:10,.0f} bytes  ({per['n_writes']:.1f} rows)")
        print(f"  auger tables + index     {per['auger']:10,.0f} bytes")
        print(f"  pages used, all tables   {total:10,.0f} bytes")
        print(f"  threads.db file growth   {per['file']:10,.0f} bytes{verdict}")
        for item in per["detail"]:
            print(item)


def postgres(url: str, turns: int, *, collapse: bool) -> None:
    import contextlib

    with contextlib.ExitStack() as stack:
        server = None
        if url == "auto":
            from pg_server import running

            server = stack.enter_context(running(Path(stack.enter_context(tempfile.TemporaryDirectory()))))
        for kind in ("simple", "tool"):
            per = asyncio.run(
                run_postgres(kind, turns, server.database() if server else url, collapse=collapse)
            )
            state = "collapsed" if collapse else "not collapsed"
            print(f"{kind} turn on PostgreSQL ({state}), mean of {turns} turns in one thread:")
            for table in PG_TABLES:
                print(f"  {table:<24} {per[table]:10,.0f} bytes")
            print(f"  {'auger tables':<24} {per['auger']:10,.0f} bytes")
            total = sum(per[k] for k in (*PG_TABLES, "auger"))
            print(f"  {'all tables':<24} {total:10,.0f} bytes")
            print(f"  main-graph checkpoints   {per['n_main']:10.1f} rows ({per['n_all']:.1f} in all)")


if __name__ == "__main__":
    main()
