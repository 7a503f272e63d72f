"""Taking a snapshot of a project: list its files, hash what changed, store new versions.

Files whose stat (size, mtime, ctime, inode, mode) matches the stat cache are not read again;
the rest are read, hashed and zlib'd in a few threads (hashlib and zlib release the GIL), and
stored once. The files the cache knows are stat'ed while `git ls-files` lists the project (two
processes, two cores), so a later snapshot costs about the longer of the two, not their sum.

Racily clean files (git's term): the kernel stamps a file's mtime and ctime with a clock that
moves in ticks, so a write in the same tick as the snapshot read the file leaves its stat as
the cache has it. A file changed within one tick of the snapshot's start is therefore marked
racy and hashed again by the next snapshot — once: by then its change lies further back. The
tick is taken as `FINE_RACY_NS` (kernel ticks are 1-10 ms) for timestamps with nanoseconds,
and as `COARSE_RACY_NS` for a timestamp with no sub-second part (a filesystem that keeps whole
seconds, or FAT's two). The rule compares file times with this machine's clock, so it assumes
the filesystem's clock is within `FINE_RACY_NS` of it (a network filesystem whose server clock
is behind can hide a same-tick write until the file changes again).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from auger.core.rewind.objects import CacheRow, NewObject, ObjectStore, StatCache, pack
from auger.core.rewind.options import RewindOptions
from auger.core.rewind.scan import Listing
from auger.core.rewind.trees import Entry, build, patch
from auger.errors import RewindError

FINE_RACY_NS = 50_000_000
COARSE_RACY_NS = 2_000_000_000
SECOND_NS = 1_000_000_000
THREADS = 4
PARALLEL_FROM = 32  # fewer files than this are hashed in the calling thread
FILE, EXECUTABLE, LINK = "100644", "100755", "120000"
_MODES = {stat.S_IFREG: FILE, stat.S_IFLNK: LINK}
Hashed = tuple[str, CacheRow, NewObject]
Todo = tuple[str, os.stat_result, str]  # path, its stat, its mode


class TooManyFiles(RewindError):
    """The project has more files than `[rewind] max_files`."""


def file_mode(st: os.stat_result) -> str | None:
    """git's mode for a file or symlink; None for anything else (folders, sockets, fifos)."""
    if stat.S_ISLNK(st.st_mode):
        return LINK
    if stat.S_ISREG(st.st_mode):
        return EXECUTABLE if st.st_mode & stat.S_IXUSR else FILE
    return None


def read_content(path: str, mode: str) -> bytes:
    """What a snapshot stores for a file: its bytes, or a symlink's target."""
    if mode == LINK:
        return os.fsencode(os.readlink(path))
    with open(path, "rb") as handle:
        return handle.read()


def take(store: ObjectStore, root: Path, home: Path, options: RewindOptions) -> str:
    """Snapshot `root` into `store`; returns the root tree id."""
    started = time.time_ns()
    listing = Listing(root, home)
    try:
        cache = store.stat_cache()
        known = _stat_known(root, cache.files)  # while git lists the project
    except BaseException:
        listing.abandon()
        raise
    paths = listing.result(limit=options.max_files)
    if len(paths) > options.max_files:
        raise TooManyFiles(
            f"{root} has more than [rewind] max_files = {options.max_files} files, so its turns are not"
            " snapshotted.",
            hint="Add a .gitignore for generated files, or raise [rewind] max_files.",
        )
    seen, todo = _unchanged(root, paths, cache.files, known, options.max_file_bytes)
    files = {path: cache.files[path] for path in seen}
    blobs: dict[str, NewObject] = {}
    for rel, row, obj in _hash_all(root, todo, started):
        files[rel] = row
        if _entry(cache.files.get(rel)) != _entry(row):
            blobs[rel] = obj
    changes: dict[str, Entry | None] = {rel: _entry(files[rel]) for rel in blobs}
    changes.update(dict.fromkeys(cache.files.keys() - files.keys()))
    if cache.tree is not None and not changes:
        if files != cache.files:  # new stat data (a touched file), the same snapshot
            _save(store, [], cache.tree, files)
        return cache.tree
    if cache.tree is None:
        tree_id, trees = build({path: Entry(row[0], row[5]) for path, row in files.items()})
    else:
        tree_id, trees = patch(store.tree, cache.tree, changes)
    known = store.existing(trees)
    new_trees = [pack("tree", data) for oid, data in trees.items() if oid not in known]
    _save(store, [*blobs.values(), *new_trees], tree_id, files)
    return tree_id


def _entry(row: CacheRow | None) -> Entry | None:
    return None if row is None else Entry(row[0], row[5])


def _save(store: ObjectStore, objects: list[NewObject], tree_id: str, files: dict[str, CacheRow]) -> None:
    with store.transaction() as cur:
        store.add(cur, objects)
        store.save_cache(cur, StatCache(tree_id, files))


def racy(st: os.stat_result, started: int) -> bool:
    """Whether a file hashed by the snapshot that started at `started` (ns) may change again
    without its stat showing it (changed within a timestamp tick of `started`)."""
    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
    whole_seconds = mtime % SECOND_NS == 0 or ctime % SECOND_NS == 0
    return max(mtime, ctime) >= started - (COARSE_RACY_NS if whole_seconds else FINE_RACY_NS)


def _stat_known(root: Path, cache: dict[str, CacheRow]) -> dict[str, os.stat_result]:
    """lstat of every path the stat cache knows (those that are gone are left out)."""
    prefix = os.path.join(root, "")
    found: dict[str, os.stat_result] = {}
    for rel in cache:
        try:
            found[rel] = os.lstat(prefix + rel)
        except OSError:
            continue
    return found


def _unchanged(
    root: Path,
    paths: list[str],
    cache: dict[str, CacheRow],
    known: dict[str, os.stat_result],
    limit: int,
) -> tuple[dict[str, None], list[Todo]]:
    """Split `paths` into files whose stat matches the cache and files to hash; paths that are
    gone, too large or not files or symlinks are in neither. `known`: stats already taken."""
    seen: dict[str, None] = {}
    todo: list[Todo] = []
    prefix = os.path.join(root, "")
    for rel in paths:
        st = known.get(rel)
        if st is None:
            try:
                st = os.lstat(prefix + rel)
            except OSError:
                continue
        mode = _MODES.get(stat.S_IFMT(st.st_mode))
        if mode is None or (mode != LINK and st.st_size > limit):
            continue
        if mode == FILE and st.st_mode & stat.S_IXUSR:
            mode = EXECUTABLE
        row = cache.get(rel)
        if (
            row is not None
            and not row[6]
            and row[2] == st.st_mtime_ns
            and row[1] == st.st_size
            and row[3] == st.st_ctime_ns
            and row[4] == st.st_ino
            and row[0] == mode
        ):
            seen[rel] = None
        else:
            todo.append((rel, st, mode))
    return seen, todo


def _hash_all(root: Path, todo: list[Todo], started: int) -> Iterable[Hashed]:
    def one(item: Todo) -> Hashed | None:
        rel, st, mode = item
        try:
            data = read_content(os.path.join(root, rel), mode)
        except OSError:  # gone or unreadable since it was listed: not in this snapshot
            return None
        obj = pack("blob", data)
        row = (mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, obj.id, int(racy(st, started)))
        return rel, row, obj

    if len(todo) < PARALLEL_FROM:
        return (h for h in map(one, todo) if h is not None)
    return _parallel(one, todo)


def _parallel(one: Callable[[Todo], Hashed | None], todo: list[Todo]) -> Iterator[Hashed]:
    """`one` over `todo` in a few threads, in batches (a future per file costs more than a small file)."""

    def batch(items: list[Todo]) -> list[Hashed]:
        return [h for h in map(one, items) if h is not None]

    workers = min(THREADS, os.cpu_count() or 1)
    size = max(16, len(todo) // (workers * 8))
    with ThreadPoolExecutor(workers, thread_name_prefix="auger-snapshot") as pool:
        for done in pool.map(batch, [todo[i : i + size] for i in range(0, len(todo), size)]):
            yield from done
