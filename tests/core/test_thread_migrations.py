"""Migrations across branches and versions: a thread database made by main's schema (at
`0004_rewind`, before `0005_collapse`) and one made before rewind (with `0005_collapse` but not
`0004_rewind`) both open cleanly, keep their threads and rewind records, and end with every
migration recorded — on the SQLite file and on PostgreSQL."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.rewind import records
from auger.core.threads import schema
from auger.core.threads.backend import ThreadDatabase
from auger.core.threads.postgres import db as postgres_db
from auger.core.threads.store import ThreadStore

ALL = [name for name, _ in schema.MIGRATIONS]


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> ThreadDatabase:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else ""
    (tmp_path / "home").mkdir()
    return ThreadDatabase(tmp_path / "home", url)


def _old_database(database: ThreadDatabase, names: list[str]) -> None:
    """The database as an auger that knew only the migrations `names` left it: those applied and
    recorded, one thread and one rewind record in it."""
    now = time.time()
    rows = [
        (
            "INSERT INTO auger_threads (id, title, created_at, updated_at) VALUES (?, 'old one', ?, ?)",
            ("t-old", now, now),
        ),
    ]
    if "0004_rewind" in names:
        rows.append(
            (
                "INSERT INTO auger_rewind_turns (thread_id, checkpoint_id, root, before_tree, bytes,"
                " created_at) VALUES ('t-old', 'c-1', '/p', 'tree-1', 42, ?)",
                (now,),
            )
        )
    if database.postgres:
        conn = postgres_db.connect(database.url)
        with conn.transaction():
            conn.execute("CREATE TABLE auger_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION)")
            for name, sql in postgres_db.MIGRATIONS:
                if name in names:
                    conn.execute(sql)
                    conn.execute("INSERT INTO auger_migrations VALUES (%s, %s)", (name, now))
            for sql, params in rows:
                conn.execute(sql.replace("?", "%s"), params)
        conn.close()
        return
    conn = sqlite3.connect(database.path, isolation_level=None)
    conn.execute("CREATE TABLE auger_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in schema.MIGRATIONS:
        if name in names:
            for statement in schema.statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO auger_migrations VALUES (?, ?)", (name, now))
    for sql, params in rows:
        conn.execute(sql, params)
    conn.close()


@pytest.fixture
def opened(database: ThreadDatabase, request: pytest.FixtureRequest) -> Iterator[ThreadStore]:
    _old_database(database, request.param)
    store = ThreadStore.connect(database)
    yield store
    store.close()


@pytest.mark.parametrize("opened", [ALL[:4]], indirect=True, ids=["main-at-0004_rewind"])
def test_a_database_made_by_main_gains_the_collapse_columns(opened: ThreadStore) -> None:
    assert opened.migrations() == ALL
    info = opened.get("t-old")
    assert info is not None and info.title == "old one"
    with opened.records() as db:
        assert records.sizes(db, ["t-old"]) == {"t-old": 42}
    opened.rename("t-old", "still here")  # writes work, and the new columns are there (unset)
    with opened.records() as db:
        row = db.cur.execute(
            "SELECT collapsed_through, seed_checkpoint FROM auger_threads WHERE id = 't-old'"
        ).fetchone()
    assert tuple(row) == (None, None)


@pytest.mark.parametrize("opened", [[*ALL[:3], ALL[4]]], indirect=True, ids=["before-rewind-with-0005"])
def test_a_database_collapsed_before_rewind_landed_gains_the_rewind_table(opened: ThreadStore) -> None:
    assert opened.migrations() == ALL  # ordered by name: 0004 applied after 0005 is fine
    with opened.records(write=True) as db:
        records.begin(db, "t-old", "c-9", "/p", "tree-9")
        assert records.before_tree(db, "t-old", "c-9") == "tree-9"
    assert opened.get("t-old") is not None


def test_both_dialects_know_the_same_migrations() -> None:
    assert [name for name, _ in postgres_db.MIGRATIONS] == ALL
