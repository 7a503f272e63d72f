"""One write transaction on a SQLite connection, shared by the thread database
(`auger.core.threads.sqlite`) and the snapshot stores (`auger.core.rewind.objects`).
Standard library only, so neither drags the other's stack in."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator


@contextlib.contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Cursor]:
    """`BEGIN IMMEDIATE` … `COMMIT` on `conn` (opened with `isolation_level=None`): the write lock
    is taken at the start, so two writers wait for each other (busy timeout) instead of failing
    at their first write; anything raised inside rolls the transaction back."""
    cur = conn.cursor()
    cur.execute("BEGIN IMMEDIATE")
    try:
        yield cur
    except BaseException:
        cur.execute("ROLLBACK")
        raise
    cur.execute("COMMIT")
