"""The thread database on PostgreSQL (`database_url = "postgresql://…"`): a `ThreadBackend`.

One psycopg connection in autocommit mode; a write is one explicit transaction whose cursor
takes `?` placeholders (`QmarkCursor`), so the ThreadStore's statements and the writer lease's
run unchanged. auger's tables and migrations: `auger.core.threads.postgres.db`; search (tsvector + GIN):
`auger.core.threads.postgres.search`; LangGraph's rows: `auger.core.threads.postgres.checkpoints`.
A finished turn's intermediate checkpoints are collapsed as on SQLite
(`auger.core.threads.checkpoints.collapse` over `checkpoint_writes`; which checkpoint holds a delta value and
the blobs no kept checkpoint names: `auger.core.threads.postgres.checkpoints`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from auger.core.threads import search as thread_search
from auger.core.threads.artifacts import thread_artifacts
from auger.core.threads.backend import SearchRow
from auger.core.threads.checkpoints.collapse import POSTGRES, Marks, SeedCheck, collapse
from auger.core.threads.postgres import checkpoints as postgres_checkpoints
from auger.core.threads.postgres import search as postgres_search
from auger.core.threads.postgres.db import QmarkCursor, connect, migrate, shown_url


class PostgresBackend:
    def __init__(self, conn: Any, url: str) -> None:
        self.conn = conn
        self.location = shown_url(url)
        self.input_filter = "metadata->>'source' = 'input'"

    @classmethod
    def open(cls, url: str) -> PostgresBackend:
        """Connect and migrate (ConfigError: unreachable, foreign or newer database, no psycopg)."""
        conn = connect(url)
        try:
            migrate(conn, url)
        except BaseException:
            conn.close()
            raise
        return cls(conn, url)

    def reader(self) -> QmarkCursor:
        return QmarkCursor(self.conn.cursor())

    @contextlib.contextmanager
    def transaction(self) -> Iterator[QmarkCursor]:
        with self.conn.transaction():
            yield QmarkCursor(self.conn.cursor())

    def close(self) -> None:
        self.conn.close()

    def has_checkpoints(self) -> bool:
        return postgres_checkpoints.has_checkpoints(self.reader())

    def search_rows(self, text: str, *, root: str | None, limit: int | None) -> list[SearchRow]:
        return postgres_search.search_rows(self.conn, text, root=root, limit=limit)

    index_messages = staticmethod(thread_search.index_messages)  # the same SQL as SQLite's
    delete_checkpoints = staticmethod(postgres_checkpoints.delete_checkpoints)
    copy_turns = staticmethod(postgres_checkpoints.copy_turns)
    truncate_turns = staticmethod(postgres_checkpoints.truncate_turns)

    def thread_artifacts(self, cur: Any, folder: Path, thread_id: str) -> list[Path]:
        return thread_artifacts(cur, folder, thread_id, named=postgres_checkpoints.named)

    def collapse(
        self,
        cur: Any,
        thread_id: str,
        marks: Marks,
        delta_channels: Sequence[str],
        holds_seed: SeedCheck,
        *,
        settled: bool,
    ) -> Marks:
        """`holds_seed` is not needed here: the checkpoints holding a delta value are found in SQL."""
        seeds = postgres_checkpoints.seed_checkpoints(cur, thread_id, marks.through, delta_channels)
        out = collapse(
            cur, thread_id, marks, delta_channels, seeds.__contains__, settled=settled, tables=POSTGRES
        )
        postgres_checkpoints.drop_unused_blobs(cur, thread_id)
        return out

    def vacuum(self) -> tuple[int, int]:
        """VACUUM auger's and LangGraph's tables: (database bytes before, after). PostgreSQL keeps
        a table's freed pages for its new rows, so the size seldom falls."""
        size = "SELECT pg_database_size(current_database())"
        before = int(self.conn.execute(size).fetchone()[0])
        self.conn.execute("VACUUM")
        return before, int(self.conn.execute(size).fetchone()[0])
