"""Turn records in the thread database (`auger_rewind_turns`, migration `0004_rewind`).

One row per (thread, user turn that changed files): the project root, the snapshot before the
turn's first file-changing tool call and the one at its end (NULL while the turn runs, or if its
process died). A turn is named by LangGraph's *input checkpoint* of that user turn, not by a
number: `threads fork` copies checkpoints with their ids (so the fork's rows are the parent's
rows for the same checkpoints), and turn numbers are recounted from the checkpoint chain when
needed. Plain sqlite3; every write is one short transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

BUSY_TIMEOUT_S = 10.0
COLUMNS = "thread_id, checkpoint_id, root, before_tree, after_tree, bytes, created_at"
INPUT = "json_extract(CAST(metadata AS TEXT), '$.source') = 'input'"  # LangGraph's own filter


@dataclass(frozen=True)
class TurnRecord:
    thread_id: str
    checkpoint_id: str
    root: str
    before_tree: str
    after_tree: str | None
    bytes: int
    created_at: float


def connect(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(db), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def latest_input(conn: sqlite3.Connection, thread_id: str) -> str | None:
    """The input checkpoint of the thread's current user turn (it is written before any tool runs)."""
    row = conn.execute(
        f"SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND {INPUT}"
        " ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()
    return str(row[0]) if row else None


def turn_number(conn: sqlite3.Connection, thread_id: str, checkpoint_id: str) -> int:
    """Which user turn (1-based) `checkpoint_id` starts."""
    row = conn.execute(
        f"SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND {INPUT}"
        " AND checkpoint_id <= ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    return int(row[0])


def begin(conn: sqlite3.Connection, thread_id: str, checkpoint_id: str, root: str, tree: str) -> None:
    """The snapshot before the turn's first change (kept if the turn already has one)."""
    conn.execute(
        f"INSERT INTO auger_rewind_turns ({COLUMNS}) VALUES (?, ?, ?, ?, NULL, 0, ?)"
        " ON CONFLICT(thread_id, checkpoint_id) DO NOTHING",
        (thread_id, checkpoint_id, root, tree, time.time()),
    )


def finish(conn: sqlite3.Connection, thread_id: str, checkpoint_id: str, tree: str, size: int) -> None:
    conn.execute(
        "UPDATE auger_rewind_turns SET after_tree = ?, bytes = ? WHERE thread_id = ? AND checkpoint_id = ?",
        (tree, size, thread_id, checkpoint_id),
    )


def before_tree(conn: sqlite3.Connection, thread_id: str, checkpoint_id: str) -> str | None:
    row = conn.execute(
        "SELECT before_tree FROM auger_rewind_turns WHERE thread_id = ? AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    return str(row[0]) if row else None


def for_thread(conn: sqlite3.Connection | sqlite3.Cursor, thread_id: str) -> list[TurnRecord]:
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM auger_rewind_turns WHERE thread_id = ? ORDER BY checkpoint_id", (thread_id,)
    ).fetchall()
    return [TurnRecord(*r) for r in rows]


def sizes(conn: sqlite3.Connection, thread_ids: Sequence[str]) -> dict[str, int]:
    """Bytes of the file versions each thread's turns changed (what its snapshots hold)."""
    out: dict[str, int] = {}
    for i in range(0, len(thread_ids), 500):
        part = list(thread_ids[i : i + 500])
        marks = ",".join("?" * len(part))
        for thread_id, total in conn.execute(
            f"SELECT thread_id, sum(bytes) FROM auger_rewind_turns WHERE thread_id IN ({marks})"
            " GROUP BY thread_id",
            part,
        ):
            out[thread_id] = int(total or 0)
    return out


def referenced_trees(conn: sqlite3.Connection, root: str) -> set[str]:
    """Every snapshot some thread of project `root` still needs."""
    rows = conn.execute("SELECT before_tree, after_tree FROM auger_rewind_turns WHERE root = ?", (root,))
    return {tree for pair in rows for tree in pair if tree}


# -- inside the thread store's write transactions (auger.core.threads) ----------------------
def copy_to_fork(cur: sqlite3.Cursor, source_id: str, new_id: str) -> None:
    """The fork shares the parent's records for the checkpoints it copied (turns 1..K)."""
    cur.execute(
        f"INSERT OR IGNORE INTO auger_rewind_turns ({COLUMNS})"
        " SELECT ?, checkpoint_id, root, before_tree, after_tree, bytes, created_at FROM auger_rewind_turns"
        " WHERE thread_id = ? AND checkpoint_id IN"
        " (SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')",
        (new_id, source_id, new_id),
    )


def delete_thread(cur: sqlite3.Cursor, thread_id: str) -> None:
    cur.execute("DELETE FROM auger_rewind_turns WHERE thread_id = ?", (thread_id,))


def delete_from(cur: sqlite3.Cursor, thread_id: str, checkpoint_id: str) -> None:
    """Forget the turns from `checkpoint_id` on (the conversation was cut there)."""
    cur.execute(
        "DELETE FROM auger_rewind_turns WHERE thread_id = ? AND checkpoint_id >= ?",
        (thread_id, checkpoint_id),
    )


def roots(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT DISTINCT root FROM auger_rewind_turns")}


def has_table(conn: sqlite3.Connection, names: Iterable[str] = ("auger_rewind_turns", "checkpoints")) -> bool:
    wanted = set(names)
    found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return wanted <= found
