"""LangGraph's PostgreSQL rows, handled as plain SQL: forks, deletes, a thread's offloaded files.

`AsyncPostgresSaver` keeps a checkpoint in `checkpoints` (JSONB; small channel values inline),
the larger channel values in `checkpoint_blobs` keyed by (thread, namespace, channel, version),
and pending writes in `checkpoint_writes`. A fork copies the chain's checkpoints (chosen as on
SQLite, `auger.core.threads.checkpoints.rows.fork_chain`), every blob of the source's main graph (a
version is shared by many checkpoints; copying all is simple and always complete) and the writes
of every copied checkpoint but the last (the fork ends with no task pending). A rewind cuts the
thread as on SQLite and drops the blobs no checkpoint left names; collapsing
(`auger.core.threads.checkpoints.collapse`) asks which checkpoints hold a delta value (`seed_checkpoints`).
Every function runs inside the caller's transaction, through `QmarkCursor` (`?` placeholders).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from auger.core.threads.checkpoints import rows as thread_checkpoints
from auger.core.threads.checkpoints.rows import fork_chain

TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def has_checkpoints(cur: Any) -> bool:
    row = cur.execute("SELECT to_regclass('checkpoint_writes') IS NOT NULL").fetchone()
    return bool(row and row[0])


def copy_turns(cur: Any, source_id: str, new_id: str, at_turn: int | None) -> int:
    ids, at_turn = fork_chain(cur, source_id, at_turn)
    cur.execute(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
        " checkpoint, metadata) SELECT ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
        " checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND checkpoint_id = ANY(?)",
        (new_id, source_id, ids),
    )
    cur.execute(
        "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)"
        " SELECT ?, checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs"
        " WHERE thread_id = ? AND checkpoint_ns = ''",
        (new_id, source_id),
    )
    cur.execute(
        "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx,"
        " channel, type, blob) SELECT ?, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel,"
        " type, blob FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND checkpoint_id = ANY(?) AND checkpoint_id != ?",
        (new_id, source_id, ids, ids[-1]),
    )
    return at_turn


def truncate_turns(cur: Any, thread_id: str, keep: int) -> str:
    """Cut the thread after user turn `keep` as on SQLite, then drop the blobs no checkpoint left
    names (a checkpoint names its channels' versions in `checkpoint->'channel_versions'`)."""
    cut = thread_checkpoints.truncate_turns(cur, thread_id, keep, writes="checkpoint_writes")
    drop_unused_blobs(cur, thread_id)
    return cut


def seed_checkpoints(cur: Any, thread_id: str, since: str | None, channels: Sequence[str]) -> set[str]:
    """The main-graph checkpoints from `since` on (None: all) holding a stored value of one of
    the delta `channels`: a non-empty blob at the checkpoint's version of it, or a value inline
    in the checkpoint — what `AsyncPostgresSaver` takes for the seed of its walk back."""
    if not channels:
        return set()
    probe = " OR ".join(
        "EXISTS (SELECT 1 FROM checkpoint_blobs b WHERE b.thread_id = c.thread_id"
        " AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = ?"
        " AND b.version = c.checkpoint->'channel_versions'->>? AND b.type <> 'empty')"
        " OR coalesce(jsonb_typeof(c.checkpoint->'channel_values'->?), 'null') <> 'null'"
        for _ in channels
    )
    rows = cur.execute(
        "SELECT c.checkpoint_id FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ''"
        f" AND c.checkpoint_id >= ? AND ({probe})",
        (thread_id, since or "", *(ch for ch in channels for _ in range(3))),
    ).fetchall()
    return {str(r[0]) for r in rows}


def drop_unused_blobs(cur: Any, thread_id: str) -> None:
    """Delete the thread's `checkpoint_blobs` rows that no checkpoint of it names any more."""
    cur.execute(
        "DELETE FROM checkpoint_blobs b WHERE b.thread_id = ? AND NOT EXISTS (SELECT 1 FROM checkpoints c"
        " WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns"
        " AND c.checkpoint->'channel_versions'->>b.channel = b.version)",
        (thread_id,),
    )


def delete_checkpoints(cur: Any, thread_id: str) -> None:
    """Remove the thread's rows from LangGraph's tables (if it has set them up yet)."""
    if has_checkpoints(cur):
        for table in TABLES:
            cur.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))


def named(cur: Any, thread_ids: Iterable[str], needle: str) -> bool:
    """True when any of the threads' LangGraph rows hold `needle` (`auger.core.threads.artifacts`)."""
    ids = list(thread_ids)
    if not ids or not has_checkpoints(cur):
        return False
    data = needle.encode("utf-8")
    row = cur.execute(
        "SELECT EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = ANY(?)"
        " AND strpos(checkpoint::text, ?) > 0)"
        " OR EXISTS (SELECT 1 FROM checkpoint_blobs WHERE thread_id = ANY(?) AND position(? IN blob) > 0)"
        " OR EXISTS (SELECT 1 FROM checkpoint_writes WHERE thread_id = ANY(?) AND position(? IN blob) > 0)",
        (ids, needle, ids, data, ids, data),
    ).fetchone()
    return bool(row and row[0])
