"""The stat cache's racy rule on real files: a write in the same timestamp tick as a snapshot is
still seen, and a file is trusted again as soon as its change lies a tick behind the snapshot.

The kernel stamps file times by clock ticks; this kernel (multigrain timestamps since Linux 6.13)
stamps a write finely once the file's times were read, so the real race cannot be produced on
demand. The first test therefore writes into the store's stat cache exactly what it would hold
after the race: the new content's stat next to the old content's id.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.rewind import changed, trees
from auger.core.rewind.objects import ObjectStore, object_id
from auger.core.rewind.options import RewindOptions
from auger.core.rewind.snapshot import take

OPTIONS = RewindOptions()
REL = "src/a.py"
TRUSTED_AFTER_NS = 60_000_000  # a file changed longer ago than this is not read again (ticks are <= 10 ms)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / "src").mkdir(parents=True)
    for i in range(20):
        (path / "src" / f"m{i}.py").write_text(f"x = {i}\n")
    (path / REL).write_text("value = A\n")
    return path


@pytest.fixture
def store(tmp_path: Path, root: Path) -> Iterator[ObjectStore]:
    with ObjectStore.open(tmp_path / "store.db", root, create=True) as s:
        yield s


def snap(store: ObjectStore, root: Path, tmp_path: Path) -> str:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return take(store, root, home, OPTIONS)


def a_tick_after(root: Path) -> None:
    """Wait until every file's last change lies `TRUSTED_AFTER_NS` in the past (the clock itself
    is what is awaited: no event says a tick went by)."""
    newest = max(max(p.lstat().st_mtime_ns, p.lstat().st_ctime_ns) for p in root.rglob("*"))
    time.sleep(max(0, newest + TRUSTED_AFTER_NS - time.time_ns()) / 1e9)


def test_a_same_size_write_in_the_snapshots_tick_is_seen_by_the_next_snapshot(
    tmp_path: Path, root: Path, store: ObjectStore
) -> None:
    (root / REL).write_text("value = A\n")  # changed just now: in the tick of the snapshot
    first = snap(store, root, tmp_path)
    (root / REL).write_text("value = B\n")  # the same size
    st = (root / REL).lstat()
    cache = store.stat_cache()
    mode, _, _, _, _, old_id, was_racy = cache.files[REL]
    assert was_racy == 1 and old_id == object_id("blob", b"value = A\n")
    # had B landed in the tick that stamped A, its stat would be the one the cache holds for A
    cache.files[REL] = (mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, old_id, was_racy)
    cache.unsure.add(REL)
    with store.transaction() as cur:
        store.save_cache(cur, cache)
    second = snap(store, root, tmp_path)
    assert [c.path for c in trees.diff(store.tree, first, second)] == [REL]
    assert dict(trees.walk(store.tree, second))[REL].id == object_id("blob", b"value = B\n")


def test_a_file_changed_a_tick_before_the_snapshot_is_trusted_at_once(
    tmp_path: Path, root: Path, store: ObjectStore
) -> None:
    a_tick_after(root)
    snap(store, root, tmp_path)
    assert [rel for rel, row in store.stat_cache().files.items() if row[6]] == []  # none hashed again


def test_whole_second_timestamps_keep_a_file_racy_for_two_seconds(
    tmp_path: Path, root: Path, store: ObjectStore
) -> None:
    whole = (time.time_ns() // changed.SECOND_NS - 1) * changed.SECOND_NS  # a second-granular mtime
    os.utime(root / REL, ns=(whole, whole))
    a_tick_after(root)
    snap(store, root, tmp_path)
    assert [rel for rel, row in store.stat_cache().files.items() if row[6]] == [REL]
