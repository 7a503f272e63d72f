"""Collapsing a finished turn's checkpoints: keep what a thread is resumed, forked and rewound
from, drop the steps in between.

With `durability="sync"` LangGraph saves a checkpoint after every step of a turn (a one-line
turn is ~13 of them), so a `kill -9` loses at most the step in flight. Once the turn is over,
only these are ever read again, and they are all that is kept (`plan`):

* the input checkpoint of each user turn (what `threads fork --at` counts and rewind records
  name), and the checkpoint just before it (the end of the previous turn: a fork's last one);
* the thread's latest checkpoint (where the next turn starts; its pending writes, if a turn was
  cancelled with a task pending, stay);
* the newest checkpoint holding a stored value of a delta channel (a `_DeltaSnapshot`, or a plain
  value from before delta channels): it bounds how far back LangGraph walks to rebuild the messages.

Every other main-graph checkpoint of the turn goes, and so do its writes, except the writes of
delta channels (`messages`: each message is stored once, as a write, never in a checkpoint).
Those are the state itself, so they move to the nearest kept ancestor, re-keyed the way
LangGraph's own `durability="exit"` stores a run's later steps on one checkpoint: task path
`~~<step><path>` and task id `ffffffff-<step>-…`, which sort after the ancestor's own writes and
in step order, whether a saver orders by path (SQLite, PostgreSQL) or by id; the delta reducer is
batching-invariant, so replaying them from one checkpoint rebuilds the same value. Kept
checkpoints are re-linked to their nearest kept ancestor. When nothing is pending any more, the
subgraph checkpoints (`checkpoint_ns != ''`: subagents' own steps) go too.

Of the checkpoints holding a delta value only the newest is kept for it: an older snapshot only
shortens the walk back to points nobody resumes from (a fork at an early turn replays the writes
from the start instead, all of them being kept). `auger_threads.collapsed_through` remembers how
far a thread is collapsed, so the next turn only walks its own checkpoints, and
`auger_threads.seed_checkpoint` the one kept for its snapshot alone. All of it is one transaction
of the caller's: a crash half-way leaves the thread as it was.

The same on both databases (`Tables`): SQLite's saver keeps writes in `writes.value`,
PostgreSQL's in `checkpoint_writes.blob`; which checkpoint holds a delta value is asked of the
backend (`seed`: on SQLite the checkpoint blob is read with LangGraph's serializer, which the
caller passes as `holds_seed`; on PostgreSQL a SQL probe of `checkpoint_blobs`, the one its saver
makes). PostgreSQL's channel values live in `checkpoint_blobs` keyed by version, shared by many
checkpoints, so there the blobs no kept checkpoint names go too
(`auger.core.threads.postgres.checkpoints.drop_unused_blobs`).

Standard library only (and `rows`, for reading a checkpoint's metadata).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from auger.core.threads.checkpoints.rows import metadata

SeedCheck = Callable[[str | None, bytes], bool]  # (type, checkpoint blob) -> holds a delta value
Seed = Callable[[str], bool]  # checkpoint id -> it holds a stored value of a delta channel


@dataclass(frozen=True)
class Tables:
    """Where a saver keeps pending writes: the table and its value column."""

    writes: str = "writes"
    value: str = "value"


SQLITE = Tables()
POSTGRES = Tables("checkpoint_writes", "blob")


@dataclass(frozen=True)
class Step:
    """One main-graph checkpoint: its id, parent, metadata source and step."""

    id: str
    parent: str | None
    source: str | None
    step: int


@dataclass
class Plan:
    delete: dict[str, tuple[str, int]] = field(default_factory=dict)  # id -> (kept ancestor, its step)
    relink: dict[str, str] = field(default_factory=dict)  # kept id -> its new parent
    seed: str | None = None  # the newest checkpoint of the chain holding a delta value
    seed_only: bool = False  # ... kept for that alone (not a turn boundary): a later one replaces it


def plan(chain: list[Step], holds_seed: Callable[[str], bool]) -> Plan:
    """What to drop from `chain` (oldest first; its first item is kept: the collapsed-through mark
    or the thread's first checkpoint). Of the checkpoints holding a delta value only the newest is
    kept for it (older ones only shorten the walk back to points nobody reads)."""
    out = Plan()
    if len(chain) < 2:
        return out
    last = len(chain) - 1
    boundary = [
        i == 0 or i == last or item.source == "input" or chain[i + 1].source == "input"
        for i, item in enumerate(chain)
    ]
    seeds = [i for i in range(1, len(chain)) if holds_seed(chain[i].id)]
    if seeds:
        out.seed, out.seed_only = chain[seeds[-1]].id, not boundary[seeds[-1]]
    kept = chain[0]
    for i, item in enumerate(chain[1:], start=1):
        if boundary[i] or item.id == out.seed:
            if item.parent != kept.id:
                out.relink[item.id] = kept.id
            kept = item
        else:
            out.delete[item.id] = (kept.id, item.step)
    return out


def late_task_id(step: int, task_id: str) -> str:
    """LangGraph's `exit_delta_late_task_id`: a valid UUID sorting after every real task id, in
    step order (`langgraph.pregel._checkpoint`)."""
    try:
        parts = str(uuid.UUID(task_id)).split("-")
    except ValueError:
        parts = str(uuid.uuid5(uuid.NAMESPACE_OID, task_id)).split("-")
    return f"ffffffff-{step >> 16:04x}-{step & 0xFFFF:04x}-{parts[3]}-{parts[4]}"


def _row(cur: Any, thread_id: str, checkpoint_id: str) -> Step | None:
    row = cur.execute(
        "SELECT parent_checkpoint_id, metadata FROM checkpoints"
        " WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    if row is None:
        return None
    meta = metadata(row[1])
    step = meta.get("step")
    return Step(checkpoint_id, row[0], meta.get("source"), step if isinstance(step, int) else 0)


def uncollapsed(cur: Any, thread_id: str, mark: str | None) -> list[Step]:
    """The main-graph checkpoints from `mark` (or the thread's first) to the latest, oldest first."""
    latest = cur.execute(
        "SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
        (thread_id,),
    ).fetchone()[0]
    chain: list[Step] = []
    seen: set[str] = set()
    cid: str | None = latest
    while cid is not None and cid not in seen and (item := _row(cur, thread_id, cid)) is not None:
        seen.add(cid)
        chain.append(item)
        if cid == mark:
            break
        cid = item.parent
    chain.reverse()
    return chain


@dataclass(frozen=True)
class Marks:
    """How far a thread is collapsed (`auger_threads.collapsed_through`) and the checkpoint kept
    for its delta value alone (`auger_threads.seed_checkpoint`), if any."""

    through: str | None = None
    seed: str | None = None


def collapse(
    cur: Any,
    thread_id: str,
    marks: Marks,
    delta_channels: Collection[str],
    seed: Seed,
    *,
    settled: bool,
    tables: Tables = SQLITE,
) -> Marks:
    """Collapse the thread's checkpoints after `marks.through` (see the module docstring);
    `settled`: no task is pending (the turn finished), so subgraph checkpoints go too. Returns
    the new marks (`through`: the latest checkpoint; None for a thread without checkpoints).
    `cur` takes `?` placeholders."""
    chain = uncollapsed(cur, thread_id, marks.through)
    if not chain:
        return Marks()
    gone = _Remover(cur, thread_id, delta_channels, tables)
    todo = plan(chain, seed)
    for checkpoint_id, (target, step) in todo.delete.items():
        gone.remove(checkpoint_id, target, step + 1)
    cur.executemany(
        "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_ns = ''"
        " AND checkpoint_id = ?",
        [(parent, thread_id, cid) for cid, parent in todo.relink.items()],
    )
    seed_mark = marks.seed
    if todo.seed is not None:  # a newer delta value: the one kept for the last is not needed
        if seed_mark is not None and seed_mark != todo.seed and seed_mark not in todo.delete:
            gone.unlink(seed_mark)
        seed_mark = todo.seed if todo.seed_only else None
    if settled:
        cur.execute(f"DELETE FROM {tables.writes} WHERE thread_id = ? AND checkpoint_ns != ''", (thread_id,))
        cur.execute("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != ''", (thread_id,))
    return Marks(chain[-1].id, seed_mark)


def sqlite_seed(cur: Any, thread_id: str, holds_seed: SeedCheck) -> Seed:
    """`Seed` on SQLite: the checkpoint's own blob, read by `holds_seed` (LangGraph's serializer)."""

    def seed(checkpoint_id: str) -> bool:
        row = cur.execute(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
            " AND checkpoint_id = ?",
            (thread_id, checkpoint_id),
        ).fetchone()
        return row is not None and holds_seed(row[0], row[1])

    return seed


@dataclass(frozen=True)
class _Remover:
    """Takes main-graph checkpoints out of one thread, keeping their delta-channel writes."""

    cur: Any
    thread_id: str
    channels: Collection[str]
    tables: Tables

    def unlink(self, checkpoint_id: str) -> None:
        """Take one checkpoint out of the middle of the chain (its child is linked to its parent)."""
        item = _row(self.cur, self.thread_id, checkpoint_id)
        if item is None or item.parent is None:
            return
        self.cur.execute(
            "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_ns = ''"
            " AND parent_checkpoint_id = ?",
            (item.parent, self.thread_id, checkpoint_id),
        )
        self.remove(checkpoint_id, item.parent, item.step + 1)

    def remove(self, checkpoint_id: str, target: str, step: int) -> None:
        """Delete a checkpoint and its writes, its delta-channel writes moved to `target`."""
        self._move_writes(checkpoint_id, target, step)
        for table in (self.tables.writes, "checkpoints"):
            self.cur.execute(
                f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                (self.thread_id, checkpoint_id),
            )

    def _move_writes(self, source: str, target: str, step: int) -> None:
        if not self.channels:
            return
        marks = ", ".join("?" * len(self.channels))
        writes, value = self.tables.writes, self.tables.value
        rows = self.cur.execute(
            f"SELECT task_id, task_path, idx, channel, type, {value} FROM {writes} WHERE thread_id = ?"
            f" AND checkpoint_ns = '' AND checkpoint_id = ? AND channel IN ({marks})",
            (self.thread_id, source, *self.channels),
        ).fetchall()
        self.cur.executemany(
            f"INSERT INTO {writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx,"
            f" channel, type, {value}) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?)",
            [
                (self.thread_id, target, late_task_id(step, tid), f"~~{step:010d}{path}", idx, ch, t, v)
                for tid, path, idx, ch, t, v in rows
            ],
        )
