"""TurnRecorder: the snapshots of one turn, before its first file change and at its end.

The Session makes one per turn (`turn_recorder`) and hands it to the tools through the run
context; `RewindMiddleware` calls `before_change()` ahead of every tool call that may change files
(only the first one snapshots: parallel calls wait for it). `finish()` at the end of the turn
takes the second snapshot, records the pair and returns a `FilesChanged` event. A turn that runs
no such tool never touches git, SQLite or the disk.

A snapshot that fails (an unwritable AUGER_HOME, a project over `[rewind] max_files`) never
fails the tool call: the turn runs on, cannot be rewound, and the user gets one notice.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.rewind import records, trees
from auger.core.rewind.objects import ObjectStore, store_lock
from auger.core.rewind.options import RewindOptions, store_path
from auger.core.rewind.snapshot import TooManyFiles, take
from auger.errors import AugerError, RewindError

if TYPE_CHECKING:
    from auger.core.threads.store import ThreadStore
    from auger.settings import Settings

log = logging.getLogger("auger.rewind")
_warned: set[str] = set()  # one notice per project and process for a failure that will repeat
_too_big: dict[str, float] = {}  # project root -> when it was found over [rewind] max_files
TOO_BIG_RETRY_S = 300.0  # meanwhile its turns do not list it again (a walk of $HOME is slow)


def turn_recorder(settings: Settings, threads: Any, thread_id: str) -> TurnRecorder | None:
    """A recorder for the turn about to run, or None when `[rewind] enabled = false` or the
    session keeps no thread database."""
    from auger.core.threads.store import ThreadStore

    options = RewindOptions.from_settings(settings)
    if not options.enabled or not isinstance(threads, ThreadStore):
        return None
    return TurnRecorder(options, settings.home, settings.project_root, threads, thread_id)


class TurnRecorder:
    def __init__(
        self, options: RewindOptions, home: Path, root: Path, threads: ThreadStore, thread_id: str
    ) -> None:
        self.options, self.home, self.root = options, home, root
        self.threads, self.thread_id = threads, thread_id
        self._lock = threading.Lock()
        self._tried = False
        self._checkpoint: str | None = None
        self._before: str | None = None
        self._notices: list[str] = []

    @property
    def recording(self) -> bool:
        return self._before is not None

    # -- before the first change -----------------------------------------------------------
    def before_change(self) -> None:
        """Snapshot once per turn (thread-safe); later calls return at once."""
        with self._lock:
            if self._tried:
                return
            self._tried = True
            if time.monotonic() - _too_big.get(str(self.root), -TOO_BIG_RETRY_S) < TOO_BIG_RETRY_S:
                return
            try:
                self._checkpoint, self._before = self._snapshot_before()
            except Exception as exc:
                if isinstance(exc, TooManyFiles):
                    _too_big[str(self.root)] = time.monotonic()
                self._failed(exc)

    async def abefore_change(self) -> None:
        if not self._tried:
            await asyncio.to_thread(self.before_change)

    def _snapshot_before(self) -> tuple[str, str]:
        with self._store() as store:
            with self.threads.records() as db:
                checkpoint = records.latest_input(db, self.thread_id)
            if checkpoint is None:
                raise RewindError("the turn has no saved checkpoint to attach its snapshot to")
            tree = take(store, self.root, self.home, self.options)
            with self.threads.records(write=True) as db:
                records.begin(db, self.thread_id, checkpoint, str(self.root), tree)
                before = records.before_tree(db, self.thread_id, checkpoint)  # an earlier one, if any
            assert before is not None
            return checkpoint, before

    # -- the end of the turn ---------------------------------------------------------------
    async def finish(self) -> list[ev.Event]:
        """The second snapshot; returns the notices and the turn's `FilesChanged` event."""
        out: list[ev.Event] = []
        if self.recording:
            try:
                out.append(await asyncio.shield(asyncio.to_thread(self._snapshot_after)))
            except asyncio.CancelledError:  # the record is completed in the background
                log.warning("turn end cancelled while its snapshot was taken")
            except Exception as exc:
                self._failed(exc)
        return [*(ev.Notice(text, "warning") for text in self._notices), *out]

    def _snapshot_after(self) -> ev.FilesChanged:
        assert self._checkpoint is not None and self._before is not None
        with self._store() as store:
            after = take(store, self.root, self.home, self.options)
            changes = list(trees.diff(store.tree, self._before, after))
            size = store.sizes(e.id for c in changes for e in (c.old, c.new) if e is not None)
            with self.threads.records(write=True) as db:
                records.finish(db, self.thread_id, self._checkpoint, after, size)
                turn = records.turn_number(db, self.thread_id, self._checkpoint)
        return ev.FilesChanged(
            turn=turn,
            paths=[c.path for c in changes],
            added=[c.path for c in changes if c.kind == "added"],
            deleted=[c.path for c in changes if c.kind == "deleted"],
        )

    # -- helpers ---------------------------------------------------------------------------
    @contextmanager
    def _store(self) -> Iterator[ObjectStore]:
        path = store_path(self.home, self.root)
        with store_lock(path), ObjectStore.open(path, self.root, create=True) as store:
            yield store

    def _failed(self, exc: Exception) -> None:
        self._before = None
        if isinstance(exc, AugerError):
            log.warning("rewind snapshot failed: %s", exc)
            why = str(exc)
        else:
            log.exception("rewind snapshot failed")
            why = f"the project snapshot failed ({exc}; details in the log)."
        key = f"{self.root}:{type(exc).__name__}"
        if key not in _warned:
            _warned.add(key)
            self._notices.append(f"This turn cannot be rewound: {why}")
