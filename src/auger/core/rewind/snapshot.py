"""Taking a snapshot of a project: list its files, hash what changed, store new versions.

What changed is told by the stat cache (`auger.core.rewind.changed`); those files are read,
hashed and zlib'd in a few threads (hashlib and zlib release the GIL), and stored once.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from auger.core.rewind.changed import LINK, Known, Todo, racy
from auger.core.rewind.gitindex import Check, index_path
from auger.core.rewind.gitindex import write as write_index
from auger.core.rewind.objects import CacheRow, NewObject, ObjectStore, StatCache, pack
from auger.core.rewind.options import RewindOptions
from auger.core.rewind.scan import Listing
from auger.core.rewind.trees import Entry, build, patch
from auger.errors import RewindError

log = logging.getLogger("auger.rewind")
THREADS = 4
# The git index is written again when a snapshot checked more rows than this in Python after git
# (rows changed since it was written, or whose times lay in its snapshot's second), or a 16th.
REBASE_FROM = 256
PARALLEL_FROM = 32  # fewer files than this are hashed in the calling thread
Hashed = tuple[str, CacheRow, NewObject]


class TooManyFiles(RewindError):
    """The project has more files than `[rewind] max_files`."""


def read_content(path: str, mode: str, size: int = 0) -> bytes:
    """What a snapshot stores for a file: its bytes, or a symlink's target. `size` (as listed)
    sizes the first read: one unbuffered read for a file that did not grow, a third of the CPU
    of a buffered `open().read()` on a project's small files."""
    if mode == LINK:
        return os.fsencode(os.readlink(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        data = os.read(fd, size + 1)
        if len(data) <= size:
            return data  # all of it (or less: it shrank since it was listed)
        parts = [data]
        while chunk := os.read(fd, 1 << 20):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def take(store: ObjectStore, root: Path, home: Path, options: RewindOptions) -> str:
    """Snapshot `root` into `store`; returns the root tree id."""
    started = time.time_ns()
    listing = Listing(root, home)
    cache, paths, known, in_python = _look(store, root, home, options, listing)
    seen, todo = known.split(paths)
    files = dict(cache.files)
    for rel in files.keys() - seen:
        del files[rel]
    unsure = cache.unsure & seen
    blobs: dict[str, NewObject] = {}
    for rel, row, obj in _hash_all(root, todo, started):
        files[rel] = row
        unsure.add(rel)
        if _entry(cache.files.get(rel)) != _entry(row):
            blobs[rel] = obj
    changes: dict[str, Entry | None] = {rel: _entry(files[rel]) for rel in blobs}
    changes.update(dict.fromkeys(cache.files.keys() - files.keys()))
    if cache.tree is None:
        tree_id, trees = build({path: Entry(row[0], row[5]) for path, row in files.items()})
    elif changes:
        tree_id, trees = patch(store.tree, cache.tree, changes)
    else:
        tree_id, trees = cache.tree, {}
    new = StatCache(tree_id, files, cache.base, cache.index, cache.base_id, unsure)
    if listing.by_git and (in_python is None or in_python > max(REBASE_FROM, len(files) // 16)):
        new = _rebased(store, new, started, options)
    if tree_id == cache.tree and new.base is cache.base and files == cache.files:
        return tree_id  # nothing to save: a turn that changes nothing costs nothing
    stored = store.existing(trees)
    new_trees = [pack("tree", data) for oid, data in trees.items() if oid not in stored]
    with store.transaction() as cur:
        store.add(cur, [*blobs.values(), *new_trees])
        store.save_cache(cur, new)
    return tree_id


def _look(
    store: ObjectStore, root: Path, home: Path, options: RewindOptions, listing: Listing
) -> tuple[StatCache, list[str], Known, int | None]:
    """The stat cache, the listed paths, the cache's rows checked against the disk, and how many
    of them Python checked after git's stat compare (None: git did not check them)."""
    check: Check | None = None
    try:
        cache = store.stat_cache()
        if listing.by_git and cache.index is not None and cache.index[1] == options.max_file_bytes:
            check = Check(index_path(store.path), cache.index[0], root, home)  # git stats, in C
        known = Known(root, cache.files, options.max_file_bytes) if check is None else None
        paths = listing.result(limit=options.max_files)  # read first: a full pipe would stall git
        if len(paths) > options.max_files:
            raise TooManyFiles(
                f"{root} has more than [rewind] max_files = {options.max_files} files, so its turns are"
                " not snapshotted.",
                hint="Add a .gitignore for generated files, or raise [rewind] max_files.",
            )
        if known is not None:
            return cache, paths, known, None
        assert check is not None
        return (cache, paths, *_checked(root, cache, check, options.max_file_bytes))
    except BaseException:
        listing.abandon()
        if check is not None:
            check.abandon()
        raise


def _checked(root: Path, cache: StatCache, check: Check, limit: int) -> tuple[Known, int | None]:
    """The cache's rows checked against the disk after git's stat compare, and how many of them
    Python checked again (None: git gave no answer, Python checked them all)."""
    named = check.result()
    if named is None:
        return Known(root, cache.files, limit), None
    suspects = named.intersection(cache.files)
    suspects.update(cache.unsure)
    known = Known(root, {rel: cache.files[rel] for rel in suspects}, limit)
    known.clean.update(cache.files.keys() - suspects)  # clean without a stat: git vouched for them
    return known, len(suspects)


def _rebased(store: ObjectStore, cache: StatCache, started: int, options: RewindOptions) -> StatCache:
    """`cache` as a new base with its git index written (without one if it cannot be written)."""
    try:
        index = write_index(index_path(store.path), cache.files, started)
    except OSError as exc:
        log.warning("no git index for the stat cache: %s", exc)
        return cache.rebased(None)
    return cache.rebased((index, options.max_file_bytes))


def _entry(row: CacheRow | None) -> Entry | None:
    return None if row is None else Entry(row[0], row[5])


def _hash_all(root: Path, todo: list[Todo], started: int) -> Iterable[Hashed]:
    def one(item: Todo) -> Hashed | None:
        rel, st, mode = item
        try:
            data = read_content(os.path.join(root, rel), mode, st.st_size)
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
