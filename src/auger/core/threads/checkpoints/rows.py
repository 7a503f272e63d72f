"""LangGraph's `checkpoints`/`writes` rows, handled as plain SQL (no LangGraph import).

A fork copies the source thread's main-graph checkpoints verbatim up to the end of a user turn,
so it carries the state (messages, todos, model) as it was at that point; a rewind cuts a thread
in place just before a user turn (the same state a fork at the turn before would have); deleting
a thread removes its rows. Every function runs inside the caller's write transaction.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any

from auger.core.text import counted
from auger.errors import ThreadError, UsageError


def copy_turns(cur: sqlite3.Cursor, source_id: str, new_id: str, at_turn: int | None) -> int:
    """Copy `source_id`'s checkpoints up to the end of user turn `at_turn` (None: all) into
    thread `new_id`; returns the number of turns copied. The source is not touched."""
    ids, at_turn = fork_chain(cur, source_id, at_turn)
    cur.execute("CREATE TEMP TABLE IF NOT EXISTS auger_fork_ids (checkpoint_id TEXT PRIMARY KEY)")
    cur.execute("DELETE FROM temp.auger_fork_ids")
    cur.executemany("INSERT INTO temp.auger_fork_ids VALUES (?)", [(i,) for i in ids])
    cur.execute(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
        " checkpoint, metadata) SELECT ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
        " checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND checkpoint_id IN (SELECT checkpoint_id FROM temp.auger_fork_ids)",
        (new_id, source_id),
    )
    # every copied checkpoint's writes but the last one's: the fork ends with no task pending
    cur.execute(
        "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel,"
        " type, value) SELECT ?, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type,"
        " value FROM writes WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND checkpoint_id IN (SELECT checkpoint_id FROM temp.auger_fork_ids) AND checkpoint_id != ?",
        (new_id, source_id, ids[-1]),
    )
    return at_turn


def fork_chain(cur: Any, source_id: str, at_turn: int | None) -> tuple[list[str], int]:
    """The main-graph checkpoint ids a fork at user turn `at_turn` (None: all) copies, oldest
    first, and that turn's number. `cur` takes `?` placeholders (SQLite, or PostgreSQL through
    `QmarkCursor`: both savers name the table and its columns alike)."""
    chain = _root_chain(cur, source_id)
    if not chain:
        raise ThreadError(f"Thread {source_id} has no saved conversation to fork.")
    inputs = [i for i, (_, source) in enumerate(chain) if source == "input"]
    turns = len(inputs)
    if at_turn is not None and at_turn < 1:
        raise UsageError(f"--at must be at least 1 (got {at_turn}).")
    if at_turn is not None and at_turn > turns:
        raise UsageError(f"Thread {source_id} has {counted(turns, 'user turn')}; cannot fork at {at_turn}.")
    if at_turn is None or at_turn == turns:
        cut, at_turn = len(chain), turns
    else:
        cut = inputs[at_turn]  # the next turn's input checkpoint is not copied
    return [cid for cid, _ in chain[:cut]], at_turn


def input_checkpoints(cur: Any, thread_id: str) -> list[str]:
    """The input checkpoint of each user turn, oldest first (user turn N is item N-1); `cur` takes
    `?` placeholders, as in `fork_chain`."""
    return [cid for cid, source in _root_chain(cur, thread_id) if source == "input"]


def truncate_turns(cur: Any, thread_id: str, keep: int, *, writes: str = "writes") -> str:
    """Remove user turns keep+1.. of the thread (every checkpoint from that turn's input on, in
    every namespace, and their writes); returns the first removed checkpoint id. `writes`: the
    saver's table of pending writes (`checkpoint_writes` on PostgreSQL)."""
    chain = _root_chain(cur, thread_id)
    inputs = [i for i, (_, source) in enumerate(chain) if source == "input"]
    if not 0 <= keep < len(inputs):
        raise UsageError(
            f"Thread {thread_id} has {counted(len(inputs), 'user turn')}; cannot cut after turn {keep}."
        )
    cut = chain[inputs[keep]][0]
    for table in ("checkpoints", writes):  # ids are time-ordered: later turns and their subagents
        cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id >= ?", (thread_id, cut))
    if inputs[keep] > 0:  # like a fork: the kept end has no task pending
        last = chain[inputs[keep] - 1][0]
        cur.execute(
            f"DELETE FROM {writes} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
            (thread_id, last),
        )
    return cut


def delete_checkpoints(cur: sqlite3.Cursor, thread_id: str) -> None:
    """Remove the thread's checkpoints and writes (if LangGraph has created its tables yet)."""
    for table in ("checkpoints", "writes"):
        with contextlib.suppress(sqlite3.OperationalError):  # LangGraph has not set up yet
            cur.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))


def _root_chain(cur: Any, thread_id: str) -> list[tuple[str, str | None]]:
    """The main-graph checkpoints of a thread, oldest first: (checkpoint_id, metadata source)."""
    rows = cur.execute(
        "SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints"
        " WHERE thread_id = ? AND checkpoint_ns = ''",
        (thread_id,),
    ).fetchall()
    if not rows:
        return []
    by_id = {cid: (parent, meta) for cid, parent, meta in rows}
    chain: list[tuple[str, str | None]] = []
    cid: str | None = max(by_id)  # LangGraph's "latest" is the greatest id
    seen: set[str] = set()
    while cid is not None and cid in by_id and cid not in seen:
        seen.add(cid)
        parent, meta = by_id[cid]
        chain.append((cid, metadata(meta).get("source")))
        cid = parent
    chain.reverse()
    return chain


def metadata(meta: Any) -> dict[str, Any]:
    """A checkpoint's `metadata` column as a dict ({} when it cannot be read)."""
    try:  # PostgreSQL's JSONB arrives as a dict already
        data = meta if isinstance(meta, dict) else json.loads(meta) if meta else {}
    except (ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}
