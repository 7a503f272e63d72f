"""The rewind operations front ends call: restore a thread's files to before turn N, and the
diff of what the agent changed (per turn or over the whole thread).

Both read the turn records from the thread database (`ThreadStore.records()`, SQLite or
PostgreSQL) and the snapshots from the project's store, under the store's shared lock
(housekeeping cannot collect what they read). `rewind_files` checks everything first — the turn
exists, the store and every needed file version are there, nothing was changed by hand since
(unless forced) — and only then writes; the conversation part of a rewind is
`threads.index.truncate_thread`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.rewind import patch, restore, timeline
from auger.core.rewind.objects import ObjectStore, store_lock
from auger.core.rewind.options import RewindOptions, store_path
from auger.core.rewind.restore import Step
from auger.core.rewind.snapshot import take
from auger.core.rewind.trees import Change
from auger.core.text import counted
from auger.errors import RewindConflict, RewindError

if TYPE_CHECKING:
    from auger.core.threads.store import ThreadStore

SHOWN = 10


def check_turn(threads: ThreadStore, thread_id: str, to: int) -> timeline.Timeline:
    """The thread's timeline; UsageError unless user turn `to` exists."""
    with threads.records() as db:
        line = timeline.load(db, thread_id)
    line.check_turn(to, "--to")
    return line


def rewind_files(
    threads: ThreadStore, thread_id: str, to: int, *, force: bool, dry_run: bool
) -> tuple[list[Step], list[str]]:
    """Restore the files the agent changed in user turns `to`.. to how they were before: the steps
    done (or, dry run, to do) and the files changed by hand that `force` overwrote."""
    line = check_turn(threads, thread_id, to)
    home = threads.home
    with _stores(home, line.roots()) as stores:
        plans = {
            root: restore.plan(
                Path(root),
                [c for _, c in _changes(line, root, store, home, since=to)],
                force=force,
            )
            for root, store in stores.items()
        }
        _refuse(list(plans.values()), force)
        contents = {  # every version needed, read before the first write
            root: stores[root].read_many(s.target.id for s in p.steps if s.target)
            for root, p in plans.items()
        }
        if not dry_run:
            for root, p in plans.items():
                restore.apply(p, contents[root])
    steps = [s for p in plans.values() for s in p.steps]
    return steps, [c.path for p in plans.values() for c in p.conflicts] if force else []


def thread_diff(threads: ThreadStore, thread_id: str, turn: int | None) -> str:
    """What the agent changed in user turn `turn` (None: over the whole thread), as a unified diff."""
    with threads.records() as db:
        line = timeline.load(db, thread_id)
    if turn is not None:
        line.check_turn(turn, "--turn")
    out = []
    home = threads.home
    with _stores(home, line.roots()) as stores:
        for root, store in stores.items():
            changes = _changes(line, root, store, home, since=turn or 1)
            out.append(patch.unified(_net([c for t, c in changes if turn in (None, t)]), store.read))
    return "".join(out)


def turn_changes(threads: ThreadStore, thread_id: str) -> tuple[int, dict[int, list[Change]]]:
    """The thread's number of user turns, and what each recorded turn changed (every project root)."""
    with threads.records() as db:
        line = timeline.load(db, thread_id)
    home = threads.home
    out: dict[int, list[Change]] = {}
    with _stores(home, line.roots()) as stores:
        for root, store in stores.items():
            for turn, changes in _changes(line, root, store, home, since=1):
                out.setdefault(turn, []).extend(changes)
    return line.turns, out


def _changes(
    line: timeline.Timeline, root: str, store: ObjectStore, home: Path, *, since: int
) -> Iterator[tuple[int, list[Change]]]:
    def now() -> str:  # the files as they are (for a last turn that never recorded its end)
        from auger.settings import load_settings  # the project's [rewind], not the current folder's

        return take(store, Path(root), home, RewindOptions.from_settings(load_settings(cwd=Path(root))))

    return line.changes(store.tree, root, now, since)


def _net(per_turn: list[list[Change]]) -> list[Change]:
    """One change per path: from before its first change to after its last."""
    first: dict[str, Change] = {}
    last: dict[str, Change] = {}
    for changes in per_turn:
        for change in changes:
            first.setdefault(change.path, change)
            last[change.path] = change
    merged = (Change(path, first[path].old, last[path].new) for path in first)
    return [c for c in merged if c.old != c.new]


@contextmanager
def _stores(home: Path, roots: list[str]) -> Iterator[dict[str, ObjectStore]]:
    """The stores of `roots`, open under their shared locks."""
    with ExitStack() as stack:
        opened: dict[str, ObjectStore] = {}
        for root in roots:
            if not Path(root).is_dir():
                raise RewindError(f"The project folder {root} is gone; nothing was changed.")
            path = store_path(home, root)
            stack.enter_context(store_lock(path))
            opened[root] = stack.enter_context(ObjectStore.open(path, root, create=False))
        yield opened


def _refuse(plans: list[restore.Plan], force: bool) -> None:
    blocked = [b for p in plans for b in p.blocked]
    if blocked:
        raise RewindError(
            f"Cannot restore {counted(len(blocked), 'path')}, so nothing was changed: {_some(blocked)}.",
            hint="Move those aside and run the rewind again.",
        )
    conflicts = [c.path for p in plans for c in p.conflicts]
    if conflicts and not force:
        raise RewindConflict(
            f"{counted(len(conflicts), 'file')} changed since the agent last wrote them, so nothing was"
            f" changed: {_some(conflicts)}.",
            hint="Re-run with --force to overwrite them too (or --conversation to keep all files).",
        )


def _some(items: list[str]) -> str:
    more = f", … and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more
