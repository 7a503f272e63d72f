"""Turn records in the thread database (`auger_rewind_turns`, migration `0004_rewind`).

One row per (thread, user turn that changed files): the project root, the snapshot before the
turn's first file-changing tool call and the one at its end (NULL while the turn runs, or if its
process died). A turn is named by LangGraph's *input checkpoint* of that user turn, not by a
number: `threads fork` copies checkpoints with their ids (so the fork's rows are the parent's
rows for the same checkpoints), and turn numbers are recounted from the checkpoint chain when
needed. Plain SQL with `?` placeholders, run on whichever thread database the ThreadStore has
open (SQLite or PostgreSQL, `auger.core.threads.backend`): the store hands a `Db` out
(`ThreadStore.records()`), and runs the few statements below its own transactions itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

COLUMNS = "thread_id, checkpoint_id, root, before_tree, after_tree, bytes, created_at"


@dataclass(frozen=True)
class TurnRecord:
    thread_id: str
    checkpoint_id: str
    root: str
    before_tree: str
    after_tree: str | None
    bytes: int
    created_at: float


@dataclass(frozen=True)
class Db:
    """The thread database as the records see it (`ThreadStore.records()`)."""

    cur: Any  # `execute(sql, params)` with `?` placeholders
    inputs: str  # SQL: this `checkpoints` row is a user turn's input (the dialects' JSON differs)
    has_checkpoints: bool  # LangGraph has set its tables up


def latest_input(db: Db, thread_id: str) -> str | None:
    """The input checkpoint of the thread's current user turn (it is written before any tool runs)."""
    if not db.has_checkpoints:
        return None
    row = db.cur.execute(
        f"SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND {db.inputs}"
        " ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()
    return str(row[0]) if row else None


def turn_number(db: Db, thread_id: str, checkpoint_id: str) -> int:
    """Which user turn (1-based) `checkpoint_id` starts."""
    row = db.cur.execute(
        f"SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND {db.inputs}"
        " AND checkpoint_id <= ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    return int(row[0])


def begin(db: Db, thread_id: str, checkpoint_id: str, root: str, tree: str) -> None:
    """The snapshot before the turn's first change (kept if the turn already has one)."""
    db.cur.execute(
        f"INSERT INTO auger_rewind_turns ({COLUMNS}) VALUES (?, ?, ?, ?, NULL, 0, ?)"
        " ON CONFLICT(thread_id, checkpoint_id) DO NOTHING",
        (thread_id, checkpoint_id, root, tree, time.time()),
    )


def finish(db: Db, thread_id: str, checkpoint_id: str, tree: str, size: int) -> None:
    db.cur.execute(
        "UPDATE auger_rewind_turns SET after_tree = ?, bytes = ? WHERE thread_id = ? AND checkpoint_id = ?",
        (tree, size, thread_id, checkpoint_id),
    )


def before_tree(db: Db, thread_id: str, checkpoint_id: str) -> str | None:
    row = db.cur.execute(
        "SELECT before_tree FROM auger_rewind_turns WHERE thread_id = ? AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    return str(row[0]) if row else None


def for_thread(db: Db, thread_id: str) -> list[TurnRecord]:
    rows = db.cur.execute(
        f"SELECT {COLUMNS} FROM auger_rewind_turns WHERE thread_id = ? ORDER BY checkpoint_id", (thread_id,)
    ).fetchall()
    return [TurnRecord(*r) for r in rows]


def batches(ids: Iterable[str]) -> Iterator[tuple[list[str], str]]:
    """`ids` 500 at a time (an `IN (...)` of SQL parameters), each batch with its `?,?,…`."""
    items = list(ids)
    for i in range(0, len(items), 500):
        part = items[i : i + 500]
        yield part, ",".join("?" * len(part))


def sizes(db: Db, thread_ids: Iterable[str]) -> dict[str, int]:
    """Bytes of the file versions each thread's turns changed (what its snapshots hold)."""
    query = "SELECT thread_id, sum(bytes) FROM auger_rewind_turns WHERE thread_id IN ({}) GROUP BY thread_id"
    return {
        thread_id: int(total or 0)
        for part, marks in batches(thread_ids)
        for thread_id, total in db.cur.execute(query.format(marks), part)
    }


def referenced_trees(db: Db, root: str) -> set[str]:
    """Every snapshot some thread of project `root` still needs."""
    rows = db.cur.execute("SELECT before_tree, after_tree FROM auger_rewind_turns WHERE root = ?", (root,))
    return {tree for pair in rows for tree in pair if tree}


# -- inside the thread store's write transactions (auger.core.threads) ----------------------
def copy_to_fork(cur: Any, source_id: str, new_id: str) -> None:
    """The fork shares the parent's records for the checkpoints it copied (turns 1..K)."""
    cur.execute(
        f"INSERT INTO auger_rewind_turns ({COLUMNS})"
        " SELECT ?, checkpoint_id, root, before_tree, after_tree, bytes, created_at FROM auger_rewind_turns"
        " WHERE thread_id = ? AND checkpoint_id IN"
        " (SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')"
        " ON CONFLICT (thread_id, checkpoint_id) DO NOTHING",
        (new_id, source_id, new_id),
    )


def delete_thread(cur: Any, thread_id: str) -> None:
    cur.execute("DELETE FROM auger_rewind_turns WHERE thread_id = ?", (thread_id,))


def delete_from(cur: Any, thread_id: str, checkpoint_id: str) -> None:
    """Forget the turns from `checkpoint_id` on (the conversation was cut there)."""
    cur.execute(
        "DELETE FROM auger_rewind_turns WHERE thread_id = ? AND checkpoint_id >= ?",
        (thread_id, checkpoint_id),
    )


def roots(db: Db) -> set[str]:
    return {r[0] for r in db.cur.execute("SELECT DISTINCT root FROM auger_rewind_turns").fetchall()}
