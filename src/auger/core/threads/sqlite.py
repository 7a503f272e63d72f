"""The thread database as one SQLite file (`$AUGER_HOME/threads.db`): a `ThreadBackend`.

One connection, WAL and a busy timeout (`auger.core.threads.schema.prepare`); every write is one
short `BEGIN IMMEDIATE` transaction. LangGraph's tables here are `checkpoints` and `writes`
(`auger.core.threads.checkpoints.rows`, `thread_artifacts`, `thread_collapse` handle them as plain SQL).
Standard library only.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from auger.core.sqlite_write import immediate
from auger.core.threads import artifacts
from auger.core.threads import schema as thread_schema
from auger.core.threads import search as thread_search
from auger.core.threads.backend import SearchRow
from auger.core.threads.checkpoints import collapse as thread_collapse
from auger.core.threads.checkpoints import rows as thread_checkpoints
from auger.core.threads.checkpoints.checkpointer import BUSY_TIMEOUT_MS, check_db_path, database_error
from auger.errors import ThreadError


class SqliteBackend:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.location = str(path)
        self.input_filter = "json_extract(CAST(metadata AS TEXT), '$.source') = 'input'"

    @classmethod
    def open(cls, path: Path) -> SqliteBackend:
        """Open (creating if needed) and migrate. A corrupt or foreign file is a ThreadError."""
        check_db_path(path)
        try:
            conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise ThreadError(f"Cannot open the thread database {path}: {exc}.") from exc
        try:
            tables = thread_schema.prepare(conn, path)
            backend = cls(conn, path)
            if not thread_schema.up_to_date(conn, tables):
                with backend.transaction() as cur:  # re-checked under the write lock: another may have won
                    thread_schema.migrate(cur)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise database_error(path, exc) from exc
        except BaseException:
            conn.close()
            raise
        return backend

    def reader(self) -> sqlite3.Connection:
        return self.conn

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Cursor]:
        return immediate(self.conn)

    def close(self) -> None:
        self.conn.close()

    def has_checkpoints(self) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'"
        return self.conn.execute(sql).fetchone() is not None

    def search_rows(self, text: str, *, root: str | None, limit: int | None) -> list[SearchRow]:
        return thread_search.search_rows(self.conn, text, root=root, limit=limit)

    # LangGraph's SQLite rows and auger's index: plain SQL over the caller's cursor
    index_messages = staticmethod(thread_search.index_messages)
    delete_checkpoints = staticmethod(thread_checkpoints.delete_checkpoints)
    copy_turns = staticmethod(thread_checkpoints.copy_turns)
    truncate_turns = staticmethod(thread_checkpoints.truncate_turns)
    thread_artifacts = staticmethod(artifacts.thread_artifacts)

    def collapse(
        self,
        cur: Any,
        thread_id: str,
        marks: thread_collapse.Marks,
        delta_channels: Sequence[str],
        holds_seed: thread_collapse.SeedCheck,
        *,
        settled: bool,
    ) -> thread_collapse.Marks:
        seed = thread_collapse.sqlite_seed(cur, thread_id, holds_seed)
        return thread_collapse.collapse(cur, thread_id, marks, delta_channels, seed, settled=settled)

    def vacuum(self) -> tuple[int, int]:
        """VACUUM and truncate the write-ahead log: (bytes before, after), the log included."""
        wal = self.path.with_name(self.path.name + "-wal")

        def size() -> int:
            return sum(p.stat().st_size for p in (self.path, wal) if p.exists())

        before = size()
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError as exc:
            raise ThreadError(
                f"Could not compact {self.path}: {exc}.", hint="Run `auger threads prune` again later."
            ) from exc
        return before, size()
