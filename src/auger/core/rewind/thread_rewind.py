"""A whole rewind of one thread, as `auger threads rewind` and the port's `rewind` operation run it.

Files first (`ops.rewind_files`: a refusal leaves files and conversation as they were), then the
conversation (`threads.index.truncate_thread`), holding the thread's writer lease throughout
(`auger.core.threads.lease`), so no turn starts meanwhile and a thread busy elsewhere is refused.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auger.core.threads.lease import ThreadBusyError, hostname

if TYPE_CHECKING:
    from auger.core.threads.store import ThreadStore


@dataclass(frozen=True)
class RewoundFile:
    path: str
    verb: str  # restored | recreated | removed
    forced: bool = False  # changed by hand since, overwritten because forced


@dataclass(frozen=True)
class Rewound:
    """What a rewind did (or, `dry_run`, would do): files put back and user turns cut."""

    thread_id: str
    turn: int
    files: list[RewoundFile] | None = None  # None: files not asked for
    removed_turns: list[int] | None = None  # None: conversation not asked for
    dry_run: bool = False
    left: int = 0  # user turns in the conversation afterwards (when it was cut)
    turns: int = 0  # user turns before
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TurnChanges:
    """One user turn of a thread: what the user sent and the project files the turn changed on
    disk (relative paths; empty when it ran no file-changing tool or changed nothing)."""

    turn: int
    prompt: str
    paths: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


async def rewind_thread(
    store: ThreadStore,
    thread_id: str,
    to: int,
    *,
    files: bool = True,
    conversation: bool = True,
    force: bool = False,
    dry_run: bool = False,
    held: bool = False,
) -> Rewound:
    """Undo user turns `to`.. of `thread_id`: its file changes, its conversation, or both.
    `held`: the caller holds the thread's writer lease already (a Session's idle operation)."""
    from auger.core.rewind import ops
    from auger.core.threads.index import truncate_thread

    with nullcontext() if held else holding(store, thread_id):
        turns = (await asyncio.to_thread(ops.check_turn, store, thread_id, to)).turns
        done: list[RewoundFile] | None = None
        if files:
            steps, forced = await asyncio.to_thread(
                ops.rewind_files, store, thread_id, to, force=force, dry_run=dry_run
            )
            done = [RewoundFile(s.path, s.verb, s.path in forced) for s in steps]
        removed = list(range(to, turns + 1)) if conversation else None
        if conversation and not dry_run:
            await truncate_thread(store, thread_id, to - 1)
    return Rewound(thread_id, to, done, removed, dry_run, left=to - 1, turns=turns)


@contextmanager
def holding(store: ThreadStore, thread_id: str) -> Iterator[None]:
    """The thread's writer lease for the rewind: refused while a turn runs on it (here or elsewhere)."""
    owner = f"{hostname()}:{os.getpid()}:rewind"
    busy = store.claim_lease(thread_id, owner)
    if busy is not None:
        raise ThreadBusyError(
            f"Thread {thread_id} is busy ({busy.describe()}); nothing was changed.",
            hint="Rewind it when its turn is over.",
        )
    try:
        yield
    finally:
        store.release_lease(thread_id, owner)


def thread_turns(store: ThreadStore, thread_id: str, prompts: list[str]) -> list[TurnChanges]:
    """Every user turn of `thread_id`, oldest first, with the files it changed; `prompts` are the
    turns' prompts in order (from the conversation)."""
    from auger.core.rewind import ops

    turns, changed = ops.turn_changes(store, thread_id)
    out = []
    for turn in range(1, turns + 1):
        changes = changed.get(turn, [])
        out.append(
            TurnChanges(
                turn,
                prompts[turn - 1] if turn <= len(prompts) else "",
                sorted({c.path for c in changes}),
                sorted(c.path for c in changes if c.kind == "added"),
                sorted(c.path for c in changes if c.kind == "deleted"),
            )
        )
    return out
