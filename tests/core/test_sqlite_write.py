"""The one write transaction of the thread database and the snapshot stores, on real SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from auger.core.sqlite_write import immediate


def connect(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    return sqlite3.connect(str(path), timeout=timeout, isolation_level=None)


def test_a_failure_inside_rolls_back_and_the_write_lock_is_taken_at_begin(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    conn, other = connect(path), connect(path, timeout=0)
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(ValueError), immediate(conn) as cur:
        cur.execute("INSERT INTO t VALUES (1)")
        raise ValueError("boom")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    # nothing written yet inside, and another writer is already shut out
    with immediate(conn), pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("BEGIN IMMEDIATE")
    with immediate(other) as cur:
        cur.execute("INSERT INTO t VALUES (2)")
    assert conn.execute("SELECT x FROM t").fetchall() == [(2,)]
