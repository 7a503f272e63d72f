"""The snapshot store of one project: content-addressed file versions in one SQLite file.

`$AUGER_HOME/snapshots/<name>-<hash>.db` (see `options.store_path`) holds

* `objects` — file contents and folder listings (trees, `auger.core.rewind.trees`), zlib'd, keyed
  by id: a file's id is git's blob id (`git hash-object` gives the same), so identical contents
  are stored once, whichever turn, thread or path they belong to;
* `meta` — the project root it belongs to, and the stat cache: per path the mode, size, mtime,
  ctime and inode seen when it was last hashed, so a snapshot reads only files whose stat changed
  (git's index does the same); one marshal'd value, read and written whole (a few ms for 5,000
  files, where 5,000 rows cost ten times that), and a random stamp saved with it: a process
  keeps the cache it last read or saved and reads it again only when the stamp moved.

Nothing here touches the project's own `.git`. Writers take `store_lock(path)` shared (snapshots
in several processes may run at once; SQLite serialises their writes); garbage collection takes it
exclusive, so it never deletes an object a snapshot in flight has just reused.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import marshal
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from auger.core.sqlite_write import immediate
from auger.errors import RewindError

BUSY_TIMEOUT_S = 10.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS objects (id TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);
"""
STAT_CACHE = "stat_cache"
STAT_STAMP = "stat_cache_stamp"  # new random bytes with every save of the stat cache


def object_id(kind: str, data: bytes) -> str:
    """git's object id: sha1 of "<kind> <size>\\0" + data."""
    digest = hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)))
    digest.update(data)
    return digest.hexdigest()


# What the stat cache remembers of one file: (mode, size, mtime_ns, ctime_ns, inode, id, racy);
# racy = changed too close to when it was hashed: hash it again next time. Plain tuples: the cache
# of a 5,000-file project is read on every snapshot.
CacheRow = tuple[str, int, int, int, int, str, int]


@dataclass
class StatCache:
    """The stat cache and the snapshot it describes (`tree`: the root tree id of exactly these files)."""

    tree: str | None
    files: dict[str, CacheRow]


@dataclass(frozen=True)
class NewObject:
    id: str
    size: int
    packed: bytes  # zlib'd content


# The stat cache this process last read or saved, per store file, with its stamp: a snapshot reads
# the small stamp row and unmarshals the cache again only when another process saved a newer one.
_recent: dict[str, tuple[bytes, StatCache]] = {}


@contextlib.contextmanager
def store_lock(path: Path, *, exclusive: bool = False) -> Iterator[None]:
    """flock on `<store>.lock` (never on the database file itself)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class ObjectStore:
    """One project's snapshot store (one connection; use it from one thread at a time)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._trees: dict[str, bytes] = {}

    @classmethod
    def open(cls, path: Path, root: Path | str, *, create: bool) -> ObjectStore:
        """Open the store of `root` at `path`; `create=False` (rewind, diff) refuses a missing one."""
        if not create and not path.is_file():
            raise RewindError(
                f"The snapshots of {root} are missing ({path} does not exist); nothing was changed."
            )
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise RewindError(f"Cannot open the snapshot store {path}: {exc}.") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            if create:
                conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # only takes effect on a new file
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('root', ?)", (str(root),))
            else:
                conn.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            raise corrupt(path, exc) from exc
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ObjectStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Cursor]:
        return immediate(self.conn)

    # -- reading ---------------------------------------------------------------------------
    def root(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        return str(row[0]) if row else None

    def existing(self, ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        batch = list(ids)
        for i in range(0, len(batch), 500):
            part = batch[i : i + 500]
            marks = ",".join("?" * len(part))
            found.update(
                r[0] for r in self.conn.execute(f"SELECT id FROM objects WHERE id IN ({marks})", part)
            )
        return found

    def read(self, object_id: str) -> bytes:
        try:
            row = self.conn.execute("SELECT data FROM objects WHERE id = ?", (object_id,)).fetchone()
            if row is None:
                raise RewindError(
                    f"The snapshot store {self.path} is missing a file version ({object_id[:12]}); "
                    "it is damaged. Nothing was changed."
                )
            return zlib.decompress(row[0])
        except (sqlite3.Error, zlib.error) as exc:
            raise corrupt(self.path, exc) from exc

    def read_many(self, ids: Iterable[str]) -> dict[str, bytes]:
        return {i: self.read(i) for i in dict.fromkeys(ids)}

    def tree(self, tree_id: str) -> bytes:
        """A tree's encoded listing (trees never change, so they are cached)."""
        data = self._trees.get(tree_id)
        if data is None:
            data = self._trees[tree_id] = self.read(tree_id)
        return data

    def sizes(self, ids: Iterable[str]) -> int:
        wanted = list(dict.fromkeys(ids))
        total = 0
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            marks = ",".join("?" * len(part))
            row = self.conn.execute(f"SELECT sum(size) FROM objects WHERE id IN ({marks})", part).fetchone()
            total += int(row[0] or 0)
        return total

    def stat_cache(self) -> StatCache:
        """The stat cache (a copy: the caller may change it)."""
        key = str(self.path)
        stamp = self.conn.execute("SELECT value FROM meta WHERE key = ?", (STAT_STAMP,)).fetchone()
        held = _recent.get(key)
        if held is not None and stamp is not None and held[0] == stamp[0]:
            tree, files = held[1].tree, held[1].files
        else:
            rows = dict(
                self.conn.execute("SELECT key, value FROM meta WHERE key IN (?, ?)", (STAT_CACHE, STAT_STAMP))
            )
            try:
                tree, files = marshal.loads(rows[STAT_CACHE]) if STAT_CACHE in rows else (None, {})
            except (EOFError, ValueError, TypeError):  # damaged: it is a cache, start over
                return StatCache(None, {})
            if not isinstance(files, dict):
                return StatCache(None, {})
            if STAT_STAMP in rows:
                _recent[key] = (rows[STAT_STAMP], StatCache(tree, files))
        if tree is not None and tree not in self.existing([tree]):
            return StatCache(None, {})
        return StatCache(tree, dict(files))

    # -- writing ---------------------------------------------------------------------------
    def add(self, cur: sqlite3.Cursor, objects: Iterable[NewObject]) -> None:
        cur.executemany(
            "INSERT OR IGNORE INTO objects (id, size, data) VALUES (?, ?, ?)",
            ((o.id, o.size, o.packed) for o in objects),
        )

    def save_cache(self, cur: sqlite3.Cursor, cache: StatCache) -> None:
        data, stamp = marshal.dumps((cache.tree, cache.files)), os.urandom(16)
        cur.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(STAT_CACHE, data), (STAT_STAMP, stamp)]
        )
        _recent[str(self.path)] = (
            stamp,
            StatCache(cache.tree, dict(cache.files)),
        )  # a rollback: stamps differ


def pack(kind: str, data: bytes) -> NewObject:
    return NewObject(object_id(kind, data), len(data), zlib.compress(data, 1))


def corrupt(path: Path, exc: BaseException) -> RewindError:
    return RewindError(
        f"The snapshot store {path} is unreadable ({exc}); nothing was changed.",
        hint="Move it aside; new turns start a fresh store (earlier turns can no longer be rewound).",
    )
