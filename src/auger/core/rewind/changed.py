"""Which files a snapshot must read: the stat cache against the files on disk.

A file whose stat (mode, size, mtime, ctime, inode) is as the cache has it, and that was not
racy when it was hashed, is not read again. `Known` does the lstat and the comparison for every
path the cache knows (or, when `auger.core.rewind.gitindex` ran that compare in git, for the paths
git named and the rows it could not vouch for), while `git ls-files` lists the project in its own
process; `split` then sorts the listing, with an lstat only for paths the cache did not know.

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
from collections.abc import Mapping
from pathlib import Path

from auger.core.rewind.objects import CacheRow

FINE_RACY_NS = 50_000_000
COARSE_RACY_NS = 2_000_000_000
SECOND_NS = 1_000_000_000
FILE, EXECUTABLE, LINK = "100644", "100755", "120000"
Todo = tuple[str, os.stat_result, str]  # path, its stat, its mode


def racy(st: os.stat_result, started: int) -> bool:
    """Whether a file hashed by the snapshot that started at `started` (ns) may change again
    without its stat showing it (changed within a timestamp tick of `started`)."""
    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
    whole_seconds = mtime % SECOND_NS == 0 or ctime % SECOND_NS == 0
    return max(mtime, ctime) >= started - (COARSE_RACY_NS if whole_seconds else FINE_RACY_NS)


def git_mode(st_mode: int) -> str | None:
    """git's mode for a file or symlink; None for anything else (folders, sockets, fifos)."""
    if stat.S_ISLNK(st_mode):
        return LINK
    if stat.S_ISREG(st_mode):
        return EXECUTABLE if st_mode & stat.S_IXUSR else FILE
    return None


class Known:
    """The paths of the stat cache, checked against the disk: `clean` ones need no reading,
    `dirty` ones (with their stat and mode) must be hashed if they are still listed."""

    def __init__(self, root: Path, cache: Mapping[str, CacheRow], limit: int) -> None:
        self.prefix, self.limit = os.path.join(root, ""), limit
        self.clean: set[str] = set()
        self.dirty: dict[str, Todo] = {}
        lstat, prefix = os.lstat, self.prefix
        modes: dict[int, str | None] = {}  # git's mode by st_mode: a project has a handful
        for rel, row in cache.items():  # the hot loop of a later snapshot: one lstat per file
            try:
                st = lstat(prefix + rel)
            except OSError:
                continue
            mode = modes.get(st.st_mode, "")
            if mode == "":
                mode = modes[st.st_mode] = git_mode(st.st_mode)
            if (
                row[2] == st.st_mtime_ns
                and row[3] == st.st_ctime_ns
                and row[1] == st.st_size
                and row[4] == st.st_ino
                and not row[6]
                and row[0] == mode
                and (st.st_size <= limit or row[0] == LINK)
            ):
                self.clean.add(rel)
            elif (todo := self._todo(rel, st)) is not None:
                self.dirty[rel] = todo

    def stat(self, rel: str) -> Todo | None:
        """`rel`'s stat and mode; None when it is gone, too large, or not a file or symlink."""
        try:
            st = os.lstat(self.prefix + rel)
        except OSError:
            return None
        return self._todo(rel, st)

    def _todo(self, rel: str, st: os.stat_result) -> Todo | None:
        mode = git_mode(st.st_mode)
        if mode is None or (mode != LINK and st.st_size > self.limit):
            return None
        return rel, st, mode

    def split(self, paths: list[str]) -> tuple[set[str], list[Todo]]:
        """The listed `paths` as (clean ones, ones to hash); paths that are gone, too large or
        not files or symlinks are in neither."""
        listed = set(paths)
        seen = listed & self.clean
        todo: list[Todo] = []
        for rel in listed - seen:
            item = self.dirty.get(rel) or self.stat(rel)
            if item is not None:
                todo.append(item)
        return seen, todo
