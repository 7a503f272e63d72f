"""The `auger_*` tables in `$AUGER_HOME/threads.db`: named migrations and opening checks.

LangGraph owns `checkpoints` and `writes`; auger owns the tables below, each created by a named
migration recorded in `auger_migrations`. Append to `MIGRATIONS`; never edit one that shipped.

* `auger_threads`  — one row per thread: title, cwd, project root, git branch, model, times,
  message count, parent thread and fork point.
* `auger_messages` + `auger_fts` — the text of each message once (user, assistant, tool result),
  with an external-content FTS5 index over it for full-text search (`auger.core.threads.search`).
* `auger_leases`   — the writer of each thread while its turn runs: owner, pid, host, expiry
  (`auger.core.threads.lease`: one writer per thread across processes).
* `auger_rewind_turns` — per thread and user turn (LangGraph's input checkpoint of the turn) that
  changed files: the project snapshot before and after it (`auger.core.rewind.records`).
* `auger_threads.collapsed_through`, `.seed_checkpoint` — the checkpoint up to which a thread's
  finished turns are collapsed, and the one kept for its messages snapshot alone
  (`auger.core.threads.checkpoints.collapse`).

Standard library only (the `auger threads` commands import this on their fast path).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from auger.core.threads.checkpoints.checkpointer import BUSY_TIMEOUT_MS, PAGE_SIZE, is_locked, lock_retries
from auger.errors import ThreadError

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_threads",
        """
        CREATE TABLE auger_threads (
            key INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL DEFAULT '',
            renamed INTEGER NOT NULL DEFAULT 0,
            cwd TEXT NOT NULL DEFAULT '',
            root TEXT NOT NULL DEFAULT '',
            git_branch TEXT,
            model TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0,
            last_message_id TEXT,
            parent_id TEXT,
            fork_turn INTEGER
        );
        CREATE INDEX auger_threads_root_updated ON auger_threads(root, updated_at);
        CREATE INDEX auger_threads_updated ON auger_threads(updated_at);
        CREATE INDEX auger_threads_parent ON auger_threads(parent_id);
        """,
    ),
    (
        "0002_search",
        """
        CREATE TABLE auger_messages (
            id INTEGER PRIMARY KEY,
            thread_key INTEGER NOT NULL,
            role TEXT NOT NULL,
            at REAL NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX auger_messages_thread ON auger_messages(thread_key);
        CREATE VIRTUAL TABLE auger_fts USING fts5(
            text, content='auger_messages', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2', columnsize=0
        );
        CREATE TRIGGER auger_messages_ai AFTER INSERT ON auger_messages BEGIN
            INSERT INTO auger_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER auger_messages_ad AFTER DELETE ON auger_messages BEGIN
            INSERT INTO auger_fts(auger_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        """,
    ),
    (
        "0003_leases",
        """
        CREATE TABLE auger_leases (
            thread_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            pid_ns TEXT NOT NULL DEFAULT '',
            acquired_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );
        """,
    ),
    (
        "0004_rewind",
        """
        CREATE TABLE auger_rewind_turns (
            thread_id TEXT NOT NULL,
            checkpoint_id TEXT NOT NULL,
            root TEXT NOT NULL,
            before_tree TEXT NOT NULL,
            after_tree TEXT,
            bytes INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            PRIMARY KEY (thread_id, checkpoint_id)
        );
        CREATE INDEX auger_rewind_turns_root ON auger_rewind_turns(root);
        """,
    ),
    (
        "0005_collapse",
        """
        ALTER TABLE auger_threads ADD COLUMN collapsed_through TEXT;
        ALTER TABLE auger_threads ADD COLUMN seed_checkpoint TEXT;
        """,
    ),
    (
        "0006_marker",
        """
        CREATE TABLE auger_database (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO auger_database VALUES ('made_by', 'auger');
        """,
    ),
]
AUGER_TABLES = {  # auger's own tables (the same on PostgreSQL: `auger.core.threads.postgres.db`)
    "auger_migrations",
    "auger_threads",
    "auger_messages",
    "auger_leases",
    "auger_rewind_turns",
    "auger_database",
}
OWN_TABLES = {*AUGER_TABLES, "checkpoints", "writes"}  # auger's and LangGraph's
# the marker: a row auger writes (migration 0006) in every database it makes; one auger made
# before the marker existed is recognised once by these tables (every such database has them)
MARKER_TABLE, MARKER_SQL = "auger_database", "SELECT value FROM auger_database WHERE name = 'made_by'"
LEGACY_TABLES = {"auger_migrations", "auger_threads"}
# the `auger_threads` columns of a ThreadInfo, in its field order
THREAD_COLUMNS = (
    "id, title, cwd, root, git_branch, model, created_at, updated_at, message_count, parent_id, fork_turn"
)
T_COLUMNS = ", ".join("t." + c.strip() for c in THREAD_COLUMNS.split(","))  # the same of `auger_threads t`


def prepare(conn: sqlite3.Connection, path: Path) -> set[str]:
    """Busy timeout, refuse a foreign database, page size (a new file), WAL. Returns the tables
    already there."""
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    check_foreign(conn, path, tables)
    if not tables:  # a new file: before WAL fixes the page size
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    for pause in lock_retries():
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if pause is None or not is_locked(exc):
                raise
            time.sleep(pause)
    conn.execute("PRAGMA synchronous=NORMAL")
    return tables


def up_to_date(conn: sqlite3.Connection, tables: set[str]) -> bool:
    """Every migration is recorded already (read without taking the write lock)."""
    if "auger_migrations" not in tables:
        return False
    done = {r[0] for r in conn.execute("SELECT name FROM auger_migrations")}
    return done.issuperset(name for name, _ in MIGRATIONS)


def migrate(cur: sqlite3.Cursor) -> None:
    """Apply the migrations not recorded yet; call inside a write transaction (`BEGIN IMMEDIATE`),
    which re-checks what is done: another process may have won."""
    cur.execute(
        "CREATE TABLE IF NOT EXISTS auger_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    done = {r[0] for r in cur.execute("SELECT name FROM auger_migrations")}
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        for statement in statements(sql):
            cur.execute(statement)
        cur.execute("INSERT INTO auger_migrations VALUES (?, ?)", (name, time.time()))


def statements(sql: str) -> list[str]:
    """Split a migration into statements (triggers keep their inner `;`)."""
    out, buf = [], ""
    for part in sql.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    return out


def check_foreign(conn: sqlite3.Connection, path: Path, tables: set[str]) -> None:
    """Refuse a database auger did not make (`not_augers`); read only."""
    marked = MARKER_TABLE in tables and conn.execute(MARKER_SQL).fetchone() is not None
    why = not_augers({t for t in tables if not t.startswith("sqlite_")}, marked, OWN_TABLES)
    if why is not None:
        raise ThreadError(
            f"The SQLite database {path} holds {why}; auger will not read or write it.",
            hint="Move it aside or set AUGER_HOME to another folder.",
        )


def not_augers(tables: set[str], marked: bool, own: set[str]) -> str | None:
    """What shows that a database with `tables` (and the marker row or not) is not auger's; None:
    it is auger's (marked, or made before the marker: `LEGACY_TABLES`) or empty. Any table that
    is neither auger's (`auger_*`) nor its checkpointer's (`own`) is something else's; so are
    LangGraph checkpoints without the marker (another application's)."""
    others = sorted(t for t in tables if not t.startswith("auger_") and t not in own)
    if others:
        return f"tables of something else ({', '.join(others[:5])})"
    if not tables or marked or tables >= LEGACY_TABLES:
        return None
    found = ", ".join(sorted(tables)[:5])
    if tables & (own - AUGER_TABLES):  # the checkpointer's tables
        return f"another application's LangGraph checkpoints ({found}) and no auger marker"
    return f"tables ({found}) but no auger marker"
