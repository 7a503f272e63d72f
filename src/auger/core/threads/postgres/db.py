"""auger's own tables on PostgreSQL (`database_url = "postgresql://…"`): connecting, migrations.

The same tables as the SQLite file (`auger.core.threads.schema`), in PostgreSQL's dialect:

* `auger_threads`  — one row per thread (`key` a BIGSERIAL);
* `auger_messages` — each message's text once, with a generated `tsvector` column (the `simple`
  configuration: no stemming and no stop words; punctuation made spaces first, so words split
  where SQLite's `unicode61` tokenizer splits them: `zebrafish.txt` is two words) and a GIN
  index over it (`auger.core.threads.postgres.search` queries it with `websearch_to_tsquery`);
* `auger_leases`   — the writer lease of each thread: the very statements of
  `auger.core.threads.lease` run here through `QmarkCursor`;
* `auger_rewind_turns` — the project snapshots around each user turn that changed files
  (`auger.core.rewind.records`, the same statements as on SQLite);
* `auger_threads.collapsed_through`, `.seed_checkpoint` — how far a thread's finished turns are
  collapsed (`auger.core.threads.checkpoints.collapse`).

Migrations are named and recorded in `auger_migrations` like SQLite's, under a transaction-level
advisory lock, so replicas starting at once apply each exactly once. A database holding tables
but none of auger's or LangGraph's, or with migrations this auger does not know (a newer one),
is refused with one clear message (exit 2), and so is a server that cannot be reached.
psycopg is imported lazily: a missing `auger[postgres]` extra is a clear message too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

from auger.core.threads.schema import AUGER_TABLES, MARKER_SQL, MARKER_TABLE, not_augers
from auger.errors import ConfigError

CONNECT_TIMEOUT = 10  # seconds
EXTRA_HINT = "Install PostgreSQL support with: pip install 'auger[postgres]'."
ADVISORY_KEY = 0x61756765  # "auge": the lock migrations take
MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_threads",
        """
        CREATE TABLE auger_threads (
            key BIGSERIAL PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL DEFAULT '',
            renamed INTEGER NOT NULL DEFAULT 0,
            cwd TEXT NOT NULL DEFAULT '',
            root TEXT NOT NULL DEFAULT '',
            git_branch TEXT,
            model TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
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
            id BIGSERIAL PRIMARY KEY,
            thread_key BIGINT NOT NULL,
            role TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            text TEXT NOT NULL,
            tsv tsvector GENERATED ALWAYS AS
                (to_tsvector('simple', regexp_replace(text, '[^[:alnum:]_]+', ' ', 'g'))) STORED
        );
        CREATE INDEX auger_messages_thread ON auger_messages(thread_key);
        CREATE INDEX auger_messages_tsv ON auger_messages USING GIN (tsv);
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
            acquired_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
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
            bytes BIGINT NOT NULL DEFAULT 0,
            created_at DOUBLE PRECISION NOT NULL,
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
OWN_TABLES = {*AUGER_TABLES, "checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"}


def shown_url(url: str) -> str:
    """`url` without its password (for messages and logs)."""
    return re.sub(r"//([^:/@]+):[^@/]*@", r"//\1:***@", url)


def psycopg_module() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise ConfigError(
            "database_url names a PostgreSQL database, but psycopg is not installed.", hint=EXTRA_HINT
        ) from exc
    return psycopg


def connect(url: str, *, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A psycopg connection (autocommit: every write is an explicit transaction), or ConfigError."""
    psycopg = psycopg_module()
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout)))
    except psycopg.Error as exc:
        raise connect_error(url, exc) from exc


def connect_error(url: str, exc: BaseException) -> ConfigError:
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return ConfigError(
        f"Cannot connect to the database {shown_url(url)}: {reason}",
        hint="Check database_url (or AUGER_DATABASE_URL) and that the server is running.",
    )


class QmarkCursor:
    """A psycopg cursor that takes SQLite's `?` placeholders, so the portable statements of
    `auger.core.threads.lease` (and the like) run unchanged on PostgreSQL."""

    def __init__(self, cur: Any) -> None:
        self._cur = cur

    def execute(self, sql: str, params: Sequence[Any] = ()) -> QmarkCursor:
        self._cur.execute(sql.replace("%", "%%").replace("?", "%s"), tuple(params))
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> QmarkCursor:
        self._cur.executemany(sql.replace("%", "%%").replace("?", "%s"), [tuple(r) for r in rows])
        return self

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)

    def fetchone(self) -> Any:
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cur.fetchall())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cur)


def check_schema(conn: Any, url: str) -> None:
    """Refuse a database that belongs to something else, or was migrated by a newer auger."""
    found = {
        r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    }
    marked = MARKER_TABLE in found and conn.execute(MARKER_SQL).fetchone() is not None
    why = not_augers(found, marked, OWN_TABLES)
    if why is not None:
        raise ConfigError(
            f"The database {shown_url(url)} holds {why}; auger will not read or write it.",
            hint="Point database_url at an empty database (or one auger created).",
        )
    if "auger_migrations" in found:
        done = {r[0] for r in conn.execute("SELECT name FROM auger_migrations")}
        if unknown := sorted(done - {name for name, _ in MIGRATIONS}):
            raise ConfigError(
                f"The database {shown_url(url)} was set up by a newer auger"
                f" (migrations {', '.join(unknown)}).",
                hint="Upgrade auger on this machine.",
            )


def migrate(conn: Any, url: str = "") -> list[str]:
    """Check the schema, then apply the migrations not recorded yet; returns their names."""
    check_schema(conn, url)
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS auger_migrations"
            " (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
        )
        done = {r[0] for r in conn.execute("SELECT name FROM auger_migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO auger_migrations VALUES (%s, %s)", (name, time.time()))
            applied.append(name)
    return applied
