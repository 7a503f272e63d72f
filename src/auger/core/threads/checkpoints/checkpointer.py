"""The SQLite checkpointer: one file (`$AUGER_HOME/threads.db`), WAL, a busy timeout, short
channel versions (`auger.core.threads.checkpoints.sqlite_saver`).

A folder we cannot write, or a file that is not an SQLite database, is a clear error and the
file is never overwritten.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.errors import ConfigError, ThreadError

if TYPE_CHECKING:
    from auger.core.threads.backend import ThreadDatabase

BUSY_TIMEOUT_MS = 10_000
# A checkpoint row of a turn is ~2.4 KB: SQLite's default 4 KB pages hold one each (40% empty),
# 8 KB pages three. Set when auger creates the file (an existing file keeps its page size).
PAGE_SIZE = 8192


def lock_retries() -> Iterator[float | None]:
    """Pauses between attempts at `PRAGMA journal_mode=WAL`, up to the busy timeout. Switching a
    new file to WAL while another process opens it fails at once with "database is locked": SQLite
    does not call the busy handler there, so we retry ourselves. The last is None: give up."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        yield 0.02
    yield None


def is_locked(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def check_db_path(path: Path) -> None:
    """Fail early, with a message naming the folder, if the DB cannot be created or used.

    The file itself is never opened here: closing any descriptor of an SQLite file drops every
    POSIX lock this process holds on it (a connection already open in this process would then
    lose writes to another process's checkpoint). SQLite reads the header itself and refuses a
    foreign file without writing to it (`database_error` turns that into a clear message)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the auger folder {path.parent}: {exc.strerror or exc}.",
            hint="Set AUGER_HOME to a writable folder.",
        ) from exc
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ThreadError(
            f"Cannot open the thread database {path}: permission denied.",
            hint="Fix its permissions or set AUGER_HOME to another folder.",
        )


def locked_error(path: Path, then: str = "", retry: str = "then try again.") -> ThreadError:
    """The ThreadError for `path` locked past the busy timeout (`then`: what auger did next)."""
    return ThreadError(
        f"The thread database {path} is locked by another program: auger waited "
        f"{BUSY_TIMEOUT_MS // 1000} s{then}.",
        hint=f"Close what holds it (e.g. a sqlite3 shell inside a transaction), {retry}",
    )


def database_error(path: Path, exc: sqlite3.DatabaseError) -> ThreadError:
    """The ThreadError for an SQLite error met while opening `path`."""
    if is_locked(exc):
        return locked_error(path)
    if "not a database" in str(exc) or isinstance(exc, sqlite3.DataError):
        return ThreadError(
            f"{path} is not an SQLite database (corrupt or foreign file); auger will not overwrite it.",
            hint="Move it aside (e.g. mv threads.db threads.db.bad) to start a fresh thread database.",
        )
    return ThreadError(
        f"The thread database {path} is unreadable: {exc}.",
        hint="Move it aside to start a fresh one; auger will not overwrite it.",
    )


async def open_checkpointer(path: Path) -> tuple[Any, Any]:
    """Open (saver, connection) on `path`; the caller closes the connection."""
    import asyncio

    import aiosqlite

    from auger.core.threads.checkpoints.sqlite_saver import CompactSqliteSaver

    check_db_path(path)
    try:
        conn = await aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.DatabaseError as exc:
        raise database_error(path, exc) from exc
    except OSError as exc:
        raise ConfigError(
            f"Cannot open the thread database {path}: {exc.strerror or exc}.",
            hint="Set AUGER_HOME to a writable folder.",
        ) from exc
    try:
        await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        for pause in lock_retries():
            try:
                await conn.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if pause is None or not is_locked(exc):
                    raise
                await asyncio.sleep(pause)
        await conn.execute("PRAGMA synchronous=NORMAL")
        saver = CompactSqliteSaver(conn)
        await saver.setup()
    except sqlite3.DatabaseError as exc:
        await conn.close()
        raise database_error(path, exc) from exc
    return saver, conn


async def open_saver(db: ThreadDatabase) -> tuple[Any, Any]:
    """(saver, closer) on the thread database — the SQLite file, or PostgreSQL through a pool
    (`auger.core.threads.postgres.saver`); the caller awaits `closer.close()`."""
    if db.postgres:
        from auger.core.threads.postgres.saver import open_postgres_saver

        return await open_postgres_saver(db.url)
    return await open_checkpointer(db.path)
