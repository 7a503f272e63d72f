"""Trees: one object per folder, listing `mode id name` of its files and subfolders.

A snapshot is the id of the project root's tree. A folder whose contents did not change keeps its
id, so consecutive snapshots share every untouched folder and `diff` skips them without reading.
Modes are git's: 100644 file, 100755 executable, 120000 symlink (the content is the link target),
40000 folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple

from auger.core.rewind.objects import object_id

TREE = "40000"


class Entry(NamedTuple):
    mode: str
    id: str


class Change(NamedTuple):
    """One path that differs between two snapshots (None: absent on that side)."""

    path: str
    old: Entry | None
    new: Entry | None

    @property
    def kind(self) -> str:
        return "added" if self.old is None else "deleted" if self.new is None else "modified"


def encode(entries: Mapping[str, Entry]) -> bytes:
    return b"".join(f"{e.mode} {e.id} {name}\0".encode() for name, e in sorted(entries.items()))


def decode(data: bytes) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for item in data.split(b"\0"):
        if item:
            mode, oid, name = item.decode().split(" ", 2)
            out[name] = Entry(mode, oid)
    return out


def build(files: Mapping[str, Entry]) -> tuple[str, dict[str, bytes]]:
    """The root tree id of `files` (relative posix path -> entry) and every tree (id -> encoded)."""
    folders: dict[str, dict[str, Entry]] = {"": {}}
    for path, entry in files.items():
        folder, _, name = path.rpartition("/")
        missing = folder
        while missing not in folders:  # the folder and any parents not seen yet
            folders[missing] = {}
            missing = missing.rpartition("/")[0]
        folders[folder][name] = entry
    trees: dict[str, bytes] = {}
    tree_id = ""
    for folder in sorted(folders, key=_depth, reverse=True):  # subfolders first, the root last
        data = encode(folders[folder])
        tree_id = object_id("tree", data)
        trees[tree_id] = data
        if folder:
            parent, _, name = folder.rpartition("/")
            folders[parent][name] = Entry(TREE, tree_id)
    return tree_id, trees


def _depth(folder: str) -> int:
    return folder.count("/") + 1 if folder else 0


Reader = Callable[[str], bytes]  # tree id -> encoded tree (ObjectStore.tree)


def patch(read: Reader, base: str, changes: Mapping[str, Entry | None]) -> tuple[str, dict[str, bytes]]:
    """`base` with `changes` applied (path -> new entry, None: removed): the new root id and the
    trees made on the way. Only the folders holding a change are read and rewritten."""
    tree_id, made = _patch(read, base, changes)
    if tree_id is None:  # everything was removed
        data = encode({})
        tree_id = object_id("tree", data)
        made[tree_id] = data
    return tree_id, made


def _patch(
    read: Reader, tree_id: str | None, changes: Mapping[str, Entry | None]
) -> tuple[str | None, dict[str, bytes]]:
    entries = decode(read(tree_id)) if tree_id else {}
    inner: dict[str, dict[str, Entry | None]] = {}
    for path, entry in changes.items():
        head, sep, rest = path.partition("/")
        if sep:
            inner.setdefault(head, {})[rest] = entry
        elif entry is None:
            entries.pop(head, None)
        else:
            entries[head] = entry
    made: dict[str, bytes] = {}
    for name, sub in inner.items():
        current = entries.get(name)
        is_folder = current is not None and current.mode == TREE
        child_id, child_made = _patch(read, current.id if current and is_folder else None, sub)
        made.update(child_made)
        if child_id is not None:
            entries[name] = Entry(TREE, child_id)
        elif is_folder:  # its last file went
            del entries[name]
    if not entries:
        return None, made
    data = encode(entries)
    new_id = object_id("tree", data)
    made[new_id] = data
    return new_id, made


def walk(read: Reader, tree_id: str, prefix: str = "") -> Iterator[tuple[str, Entry]]:
    """Every file of a snapshot as (path, entry)."""
    for name, entry in decode(read(tree_id)).items():
        path = f"{prefix}{name}"
        if entry.mode == TREE:
            yield from walk(read, entry.id, path + "/")
        else:
            yield path, entry


def diff(read: Reader, old: str | None, new: str | None, prefix: str = "") -> Iterator[Change]:
    """The files that differ between two snapshots, skipping folders with the same id."""
    if old == new:
        return
    a = decode(read(old)) if old else {}
    b = decode(read(new)) if new else {}
    for name in sorted(a.keys() | b.keys()):
        x, y = a.get(name), b.get(name)
        if x == y:
            continue
        path = f"{prefix}{name}"
        x_tree = x.id if x and x.mode == TREE else None
        y_tree = y.id if y and y.mode == TREE else None
        if x_tree or y_tree:
            yield from diff(read, x_tree, y_tree, path + "/")
        x_file = None if x is None or x.mode == TREE else x
        y_file = None if y is None or y.mode == TREE else y
        if x_file != y_file:
            yield Change(path, x_file, y_file)
