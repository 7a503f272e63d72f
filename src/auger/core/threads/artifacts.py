"""Which files under `$AUGER_HOME/artifacts` belong to a thread, so deleting the thread removes them.

deepagents offloads a large tool result to `large_tool_results/<tool call id>` and summarised
history to `conversation_history/<session id>.md` (`auger.core.backends.mounts`, the `/~artifacts/`
route). Neither name says which thread wrote it, but the thread's own checkpoint data does: the
tool message that was offloaded keeps the file's path, and the state keeps the summarisation
session id. So a file belongs to a thread when its name appears in the raw bytes of the thread's
LangGraph rows (`checkpoints`, `writes`: msgpack keeps strings verbatim), subagents included
(same thread id, another namespace). A file the thread's forks — or the thread it was forked
from — also name is kept: a fork copies the checkpoints, so it uses the same files.

SQLite and the standard library only (`auger threads delete` stays fast).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

OFFLOAD_FOLDERS = ("large_tool_results", "conversation_history")


def artifact_files(folder: Path) -> list[Path]:
    """The offloaded files under `folder` (media under conversation_history/media are shared by
    content hash and left to `auger threads prune`)."""
    out: list[Path] = []
    for name in OFFLOAD_FOLDERS:
        sub = folder / name
        if sub.is_dir():
            out += sorted(p for p in sub.iterdir() if p.is_file())
    return out


def _named(cur: sqlite3.Cursor, thread_ids: Iterable[str], needle: str) -> bool:
    """True when any of the threads' checkpoint rows hold `needle` (byte-wise, as UTF-8)."""
    data = needle.encode("utf-8")
    for thread_id in thread_ids:
        for table, column in (("checkpoints", "checkpoint"), ("writes", "value")):
            row = cur.execute(
                f"SELECT 1 FROM {table} WHERE thread_id = ? AND instr({column}, ?) > 0 LIMIT 1",
                (thread_id, data),
            ).fetchone()
            if row is not None:
                return True
    return False


def _has_checkpoints(cur: sqlite3.Cursor) -> bool:
    found = cur.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')"
    ).fetchone()
    return bool(found and found[0] == 2)


def related_threads(cur: Any, thread_id: str) -> list[str]:
    """The threads that may share checkpoint data with `thread_id`: its forks and its parent."""
    rows = cur.execute(
        "SELECT id FROM auger_threads WHERE parent_id = ?"
        " UNION SELECT parent_id FROM auger_threads WHERE id = ? AND parent_id IS NOT NULL",
        (thread_id, thread_id),
    ).fetchall()
    return [r[0] for r in rows if r[0] != thread_id]


Named = Callable[[Any, Iterable[str], str], bool]  # (cursor, thread ids, needle) -> named there


def thread_artifacts(cur: Any, folder: Path, thread_id: str, *, named: Named | None = None) -> list[Path]:
    """The files under `folder` that only `thread_id` (of it and its forks) names. Call before
    its checkpoints are deleted, inside the same transaction. `named` looks into LangGraph's
    rows (default: SQLite's tables; PostgreSQL's are `auger.core.threads.postgres.checkpoints`)."""
    if named is None:
        if not _has_checkpoints(cur):
            return []
        named = _named
    others = related_threads(cur, thread_id)
    owned: list[Path] = []
    for path in artifact_files(folder):
        needle = path.stem if path.suffix == ".md" else path.name
        if named(cur, [thread_id], needle) and not named(cur, others, needle):
            owned.append(path)
    return owned
