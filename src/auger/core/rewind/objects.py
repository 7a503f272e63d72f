"""The snapshot store of one project: content-addressed file versions in one SQLite file.

`$AUGER_HOME/snapshots/<name>-<hash>.db` (see `options.store_path`) holds

* `objects` — file contents and folder listings (trees, `auger.core.rewind.trees`), zlib'd, keyed
  by id: a file's id is git's blob id (`git hash-object` gives the same), so identical contents
  are stored once, whichever turn, thread or path they belong to;
* `meta` — the project root it belongs to, and the stat cache: per path the mode, size, mtime,
  ctime and inode seen when it was last hashed, so a snapshot reads only files whose stat changed
  (git's index does the same). It is kept as a base (one marshal'd value: a few ms for 5,000
  files, where 5,000 rows cost ten times that), written again only now and then, and the rows
  that differ from it (`stat_top`, with the snapshot they describe), written by every snapshot
  that changed something; the base's git index (`auger.core.rewind.gitindex`) is named by its id
  in the base. A random stamp is saved with every change: a process keeps the cache it last read
  or saved and reads it again only when the stamp moved.

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
from dataclasses import dataclass, field, replace
from pathlib import Path

from auger.core.rewind.records import batches
from auger.core.sqlite_write import immediate
from auger.errors import RewindError

BUSY_TIMEOUT_S = 10.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS objects (id TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);
"""
STAT_BASE = "stat_base"  # marshal'd (base id, index, rows)
STAT_BASE_ID = "stat_base_id"  # the base's random id, read without the rows
STAT_TOP = "stat_top"  # marshal'd (tree, base id, rows that differ from the base, paths not in it)
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


Index = tuple[str, int]  # a git index's id and the [rewind] max_file_mb (bytes) it was written under


@dataclass
class StatCache:
    """The stat cache and the snapshot it describes (`tree`: the root tree id of exactly these files).

    `base` (never changed in place) is the rows last written whole, `index` the id of the git
    index written for exactly them; `files` differs from `base` only in the paths of `unsure`
    (whoever changes a row of `files` adds its path there).
    """

    tree: str | None
    files: dict[str, CacheRow]
    base: dict[str, CacheRow] = field(default_factory=dict)
    index: Index | None = None
    base_id: bytes = b""
    unsure: set[str] = field(default_factory=set)

    def top(self) -> tuple[dict[str, CacheRow], list[str]]:
        """The rows that differ from the base, and the base's paths no longer in `files`."""
        files = self.files
        changed = {rel: files[rel] for rel in self.unsure if rel in files}
        return changed, list(self.base.keys() - files.keys())

    def rebased(self, index: Index | None) -> StatCache:
        """These files as a new base, described by the git index `index`."""
        return StatCache(self.tree, self.files, self.files, index)


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
        query = "SELECT id FROM objects WHERE id IN ({})"
        return {r[0] for part, marks in batches(ids) for r in self.conn.execute(query.format(marks), part)}

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
        query = "SELECT sum(size) FROM objects WHERE id IN ({})"
        sums = (
            self.conn.execute(query.format(m), part).fetchone()[0] for part, m in batches(dict.fromkeys(ids))
        )
        return sum(int(total or 0) for total in sums)

    def stat_cache(self) -> StatCache:
        """The stat cache (`files` is a copy: the caller may change it)."""
        key = str(self.path)
        stamp = self.conn.execute("SELECT value FROM meta WHERE key = ?", (STAT_STAMP,)).fetchone()
        held = _recent.get(key)
        if held is not None and stamp is not None and held[0] == stamp[0]:
            cache = held[1]
        else:
            keys = (STAT_BASE, STAT_TOP, STAT_STAMP)
            rows = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN (?, ?, ?)", keys))
            try:
                cache = _loads(rows.get(STAT_BASE), rows.get(STAT_TOP))
            except (EOFError, ValueError, TypeError):  # damaged: it is a cache, start over
                return StatCache(None, {})
            if STAT_STAMP in rows:
                _recent[key] = (rows[STAT_STAMP], cache)
        if cache.tree is not None and cache.tree not in self.existing([cache.tree]):
            return StatCache(None, {})
        return replace(cache, files=dict(cache.files), unsure=set(cache.unsure))

    # -- writing ---------------------------------------------------------------------------
    def add(self, cur: sqlite3.Cursor, objects: Iterable[NewObject]) -> None:
        cur.executemany(
            "INSERT OR IGNORE INTO objects (id, size, data) VALUES (?, ?, ?)",
            ((o.id, o.size, o.packed) for o in objects),
        )

    def save_cache(self, cur: sqlite3.Cursor, cache: StatCache) -> None:
        """Save `cache`: its rows that differ from its base, and the base itself when it is new or
        another process saved another one since (a few rows, not the whole cache, most times)."""
        base_id = cache.base_id
        saved = cur.execute("SELECT value FROM meta WHERE key = ?", (STAT_BASE_ID,)).fetchone()
        values = []
        if not base_id or saved is None or saved[0] != base_id:
            base_id = os.urandom(16)
            values += [
                (STAT_BASE, marshal.dumps((base_id, cache.index, cache.base))),
                (STAT_BASE_ID, base_id),
            ]
        changed, removed = cache.top()
        stamp = os.urandom(16)
        values += [(STAT_TOP, marshal.dumps((cache.tree, base_id, changed, removed))), (STAT_STAMP, stamp)]
        cur.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values)
        cur.execute("DELETE FROM meta WHERE key = 'stat_cache'")  # the whole-cache row of earlier versions
        held = replace(cache, files=dict(cache.files), base_id=base_id, unsure=set(changed))
        _recent[str(self.path)] = (stamp, held)  # a rollback: stamps differ


def _loads(base_data: bytes | None, top_data: bytes | None) -> StatCache:
    """The stat cache from its two rows; an empty one when they are missing or do not match."""
    if base_data is None or top_data is None:
        return StatCache(None, {})
    base_id, index, base = marshal.loads(base_data)
    tree, top_base, changed, removed = marshal.loads(top_data)
    if top_base != base_id or not isinstance(base, dict) or not isinstance(changed, dict):
        return StatCache(None, {})
    files = dict(base)
    files.update(changed)
    for rel in removed:
        files.pop(rel, None)
    return StatCache(tree, files, base, tuple(index) if index else None, base_id, set(changed))


def pack(kind: str, data: bytes) -> NewObject:
    return NewObject(object_id(kind, data), len(data), zlib.compress(data, 1))


def corrupt(path: Path, exc: BaseException) -> RewindError:
    return RewindError(
        f"The snapshot store {path} is unreadable ({exc}); nothing was changed.",
        hint="Move it aside; new turns start a fresh store (earlier turns can no longer be rewound).",
    )
