"""The SQLite checkpointer: one file (`$AUGER_HOME/threads.db`), WAL, a busy timeout.

A folder we cannot write, or a file that is not an SQLite database, is a clear error and the
file is never overwritten.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from auger.errors import ConfigError, ThreadError

BUSY_TIMEOUT_MS = 10_000


def check_db_path(path: Path) -> None:
    """Fail early, with a message naming the file/folder, if the DB cannot be used."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the auger folder {path.parent}: {exc.strerror or exc}.",
            hint="Set AUGER_HOME to a writable folder.",
        ) from exc
    if not path.exists():
        return
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise ThreadError(f"Cannot read the thread database {path}: {exc.strerror or exc}.") from exc
    if head and head != b"SQLite format 3\x00":
        raise ThreadError(
            f"{path} is not an SQLite database (corrupt or foreign file); auger will not overwrite it.",
            hint="Move it aside (e.g. mv threads.db threads.db.bad) to start a fresh thread database.",
        )


async def open_checkpointer(path: Path) -> tuple[Any, Any]:
    """Open (saver, connection) on `path`; the caller closes the connection."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    check_db_path(path)
    try:
        conn = await aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA synchronous=NORMAL")
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
    except sqlite3.DatabaseError as exc:
        raise ThreadError(
            f"The thread database {path} is unreadable: {exc}.",
            hint="Move it aside to start a fresh one; auger will not overwrite it.",
        ) from exc
    except OSError as exc:
        raise ConfigError(
            f"Cannot open the thread database {path}: {exc.strerror or exc}.",
            hint="Set AUGER_HOME to a writable folder.",
        ) from exc
    return saver, conn
