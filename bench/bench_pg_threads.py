"""Thread listing and search at scale on PostgreSQL: 10,000 threads, ~200,000 messages.

    python bench/bench_pg_threads.py [--url URL] [--runs 7]

Without --url a server is started for the run (tests/pg_server.py). The rows are synthetic like
gen_threads_db.py's (Zipf-weighted vocabulary, 50 projects, one rare word in 3 threads), written
through auger's PostgreSQL schema (`auger.core.threads.postgres.db`), with a rewind record for
every fourth thread. Timed, median of --runs after one warm-up, each through a new `ThreadStore`
on the database (connecting and checking the migrations, as every `auger threads` command does):
`threads list` (this project, all projects: the page of threads and their snapshot sizes), and
search for a rare word, a common word, two common words, and a common word in one project.
Targets (issue 15): list <= 200 ms, search <= 300 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

from gen_threads_db import COMMON_WORD, PROJECTS, RARE_WORD, vocabulary  # noqa: E402

from auger.core.rewind.records import sizes  # noqa: E402
from auger.core.threads.backend import ThreadDatabase  # noqa: E402
from auger.core.threads.postgres.db import connect, migrate  # noqa: E402
from auger.core.threads.store import ThreadStore  # noqa: E402


def fill(url: str, n_threads: int, per_thread: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words, cum = vocabulary(rng)
    roots = [f"/projects/p{p:02d}" for p in range(PROJECTS)]
    rare = set(rng.sample(range(n_threads), 3))
    now = time.time()
    with connect(url) as conn:
        migrate(conn, url)
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY auger_threads (id, title, cwd, root, git_branch, model, created_at, updated_at,"
                " message_count)"
                " FROM STDIN"
            ) as copy,
        ):
            for i in range(n_threads):
                created = now - rng.uniform(0, 90 * 86400)
                title = " ".join(rng.choices(words, cum_weights=cum, k=rng.randint(3, 9)))
                root = roots[i % PROJECTS]
                copy.write_row(
                    (uuid.uuid4().hex, title, root, root, "main", "local:m", created, created, per_thread)
                )
        keys = [r[0] for r in conn.execute("SELECT key FROM auger_threads ORDER BY key")]
        roles = ["user", "assistant", "tool", "assistant"]
        with (
            conn.cursor() as cur,
            cur.copy("COPY auger_messages (thread_key, role, at, text) FROM STDIN") as copy,
        ):
            for i, key in enumerate(keys):
                for m in range(per_thread):
                    role = roles[m % 4]
                    n = {"user": 12, "assistant": 30, "tool": 80}[role]
                    body = " ".join(rng.choices(words, cum_weights=cum, k=n))
                    if role == "tool" and i in rare and m == 2:
                        body += f" {RARE_WORD}"
                    copy.write_row((key, role, now, body))
        rows = conn.execute("SELECT id, root FROM auger_threads WHERE key % 4 = 0").fetchall()
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY auger_rewind_turns (thread_id, checkpoint_id, root, before_tree, after_tree, bytes,"
                " created_at) FROM STDIN"
            ) as copy,
        ):
            for thread_id, root in rows:
                copy.write_row((thread_id, uuid.uuid4().hex, root, "t0", "t1", rng.randint(100, 9999), now))
        for table in ("auger_threads", "auger_messages", "auger_rewind_turns"):
            conn.execute(f"VACUUM ANALYZE {table}")
    return roots


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, out = [], None
    for i in range(runs + 1):
        t0 = time.perf_counter()
        out = fn()
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=10_000)
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        url = args.url
        if url is None:
            from pg_server import running

            server = stack.enter_context(running(Path(stack.enter_context(tempfile.TemporaryDirectory()))))
            url = server.database()
        t0 = time.perf_counter()
        roots = fill(url, args.threads, 20)
        print(
            f"filled {args.threads:,} threads, {args.threads * 20:,} messages"
            f" in {time.perf_counter() - t0:.0f} s"
        )

        database = ThreadDatabase(Path(tempfile.gettempdir()), url)

        def listing(root: str | None) -> Callable[[], Any]:
            def run() -> Any:  # what `auger threads list` asks (cli/threads.py)
                with ThreadStore.connect(database) as store:
                    threads = store.list(root=root, limit=50)
                    with store.records() as db:
                        sizes(db, [t.id for t in threads])
                    return threads

            return run

        def search(text: str, root: str | None) -> Callable[[], Any]:
            def run() -> Any:
                with ThreadStore.connect(database) as store:
                    return store.search(text, root=root, limit=50)

            return run

        cases = [
            ("threads list (this project)", listing(roots[0]), 0.2),
            ("threads list --all", listing(None), 0.2),
            ("search: rare word", search(RARE_WORD, None), 0.3),
            ("search: common word", search(COMMON_WORD, None), 0.3),
            ("search: two common words", search(f"{COMMON_WORD} test", None), 0.3),
            ("search: common word, this project", search(COMMON_WORD, roots[0]), 0.3),
        ]
        print("a new ThreadStore + the command's queries (median):")
        for name, fn, target in cases:
            seconds, rows = timed(fn, args.runs)
            verdict = "ok" if seconds <= target else "OVER"
            print(
                f"  {name:<38} {seconds * 1000:8.1f} ms  (target {target * 1000:.0f} ms {verdict})"
                f" {len(rows)} rows"
            )


if __name__ == "__main__":
    main()
