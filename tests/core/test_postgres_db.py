"""auger's tables on a real PostgreSQL server (tests/pg_server.py): migrations (once, also when
processes race), a foreign or newer database refused, an unreachable server or a missing psycopg
one clear message, the writer lease's own statements, and search answering like SQLite's."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from auger.core.threads import lease as thread_lease
from auger.core.threads.postgres.db import MIGRATIONS, QmarkCursor, connect, migrate
from auger.core.threads.postgres.search import search_rows
from auger.core.threads.search import HIT_END, HIT_START, IndexedMessage
from auger.errors import ConfigError

MIGRATE = """
import sys, time
from auger.core.threads.postgres.db import connect, migrate
start = float(sys.argv[2])
while time.time() < start:
    pass
print(",".join(migrate(connect(sys.argv[1]), sys.argv[1])))
"""


def test_migrations_apply_once_even_when_processes_race(pg_url: str) -> None:
    start = time.time() + 1.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE, pg_url, str(start)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    applied = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert sorted(applied) == ["", "", ",".join(name for name, _ in MIGRATIONS)]
    with connect(pg_url) as conn:
        assert migrate(conn, pg_url) == []


def test_a_database_of_something_else_or_a_newer_auger_is_refused(pg_url: str) -> None:
    with connect(pg_url) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
        with pytest.raises(ConfigError, match=r"holds tables of something else \(invoices\)"):
            migrate(conn, pg_url)
        conn.execute("DROP TABLE invoices")
        migrate(conn, pg_url)
        conn.execute("INSERT INTO auger_migrations VALUES ('0099_future', 0)")
        with pytest.raises(ConfigError, match="set up by a newer auger"):
            migrate(conn, pg_url)


def test_a_database_made_before_the_marker_is_marked_once_and_one_with_other_tables_refused(
    pg_url: str,
) -> None:
    with connect(pg_url) as conn:
        migrate(conn, pg_url)
        conn.execute("DROP TABLE auger_database")  # what auger wrote before migration 0006: no marker
        conn.execute("DELETE FROM auger_migrations WHERE name = '0006_marker'")
        assert migrate(conn, pg_url) == ["0006_marker"]
        assert conn.execute("SELECT value FROM auger_database").fetchall() == [("auger",)]
        conn.execute("CREATE TABLE invoices (id int)")
        with pytest.raises(ConfigError, match=r"holds tables of something else \(invoices\)"):
            migrate(conn, pg_url)


def test_an_unreachable_server_is_one_clear_error_without_the_password(pg_server: Any) -> None:
    url = f"postgresql://auger:s3cret@127.0.0.1:{pg_server.port + 1}/nowhere"
    with pytest.raises(ConfigError) as info:
        connect(url, timeout=2)
    text = str(info.value)
    assert "Cannot connect to the database postgresql://auger:***@127.0.0.1" in text
    assert "s3cret" not in text and "database_url" in text


def test_without_psycopg_the_message_names_the_extra(pg_url: str) -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from auger.core.threads.postgres.db import connect\nconnect(sys.argv[1])"
    )
    proc = subprocess.run([sys.executable, "-c", code, pg_url], capture_output=True, text=True)
    assert proc.returncode != 0 and "pip install 'auger[postgres]'" in proc.stderr


def test_the_writer_lease_statements_run_unchanged(pg_url: str) -> None:
    with connect(pg_url) as conn:
        migrate(conn, pg_url)
        cur = QmarkCursor(conn.cursor())
        assert thread_lease.claim(cur, "t1", "me") is None
        assert thread_lease.claim(cur, "t1", "me") is None  # renewing
        other = thread_lease.claim(cur, "t1", "you")
        assert other is not None and other.owner == "me"
        thread_lease.release(cur, "t1", "me")
        assert thread_lease.claim(cur, "t1", "you") is None
        assert thread_lease.claim(cur, "t2", "me", ttl=-1) is None  # expired at once
        assert thread_lease.claim(cur, "t2", "you") is None


def _thread(conn: Any, tid: str, root: str, updated: float, texts: list[str]) -> None:
    key = conn.execute(
        "INSERT INTO auger_threads (id, title, cwd, root, created_at, updated_at)"
        " VALUES (%s, %s, %s, %s, %s, %s) RETURNING key",
        (tid, tid, root, root, updated, updated),
    ).fetchone()[0]
    from auger.core.threads.search import index_messages  # the same for both databases

    with conn.cursor() as cur:
        index_messages(QmarkCursor(cur), key, [IndexedMessage("user", t) for t in texts], updated)


def test_search_finds_threads_with_every_word_newest_first(pg_url: str) -> None:
    with connect(pg_url) as conn:
        migrate(conn, pg_url)
        _thread(conn, "old", "/a", 1.0, ["the parser breaks on a token", "unrelated"])
        _thread(conn, "new", "/a", 3.0, ["parser first", "then a Token: here, parser again"])
        _thread(conn, "other", "/b", 2.0, ["parser and token in project b"])
        _thread(conn, "half", "/a", 4.0, ["only the parser", "only the token"])

        def ids(text: str, root: str | None = None) -> list[str]:
            return [row[0][0] for row in search_rows(conn, text, root=root, limit=50)]

        assert ids("parser token") == ["new", "other", "old"]  # both words in one message
        assert ids("parser token", root="/a") == ["new", "old"]
        assert ids('"parser breaks"') == ["old"] and ids("parser -token") == ["half", "new"]
        assert ids("!!! (") == [] and ids('"unbalanced') == []
        (info, snippet, at), *_ = search_rows(conn, "parser token", root="/a", limit=1)
        assert (
            info[0] == "new"
            and f"{HIT_START}Token{HIT_END}" in snippet
            and f"{HIT_START}parser{HIT_END}" in snippet
            and at == 3.0
        )
