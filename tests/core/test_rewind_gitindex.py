"""The stat cache's git index (core/rewind/gitindex.py) on real files and a real `git`: a later
snapshot lets `git diff-files` do the stat compare, and is never wrong because of it.

Several tests need a file whose times lie in a second before the snapshot's start (git compares
whole seconds, so a file changed in the snapshot's own second is always checked in Python): they
wait for the clock to pass the next second, which no event announces.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.rewind import changed, snapshot, trees
from auger.core.rewind.gitindex import index_path
from auger.core.rewind.objects import ObjectStore, object_id
from auger.core.rewind.options import RewindOptions
from auger.core.rewind.snapshot import take

OPTIONS = RewindOptions(max_file_bytes=64 * 1024)
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    for i in range(40):
        folder = path / f"pkg{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"value = {i:03}\n")
    return path


@pytest.fixture
def store(tmp_path: Path, root: Path) -> Iterator[ObjectStore]:
    with ObjectStore.open(tmp_path / "store.db", root, create=True) as s:
        yield s


def snap(store: ObjectStore, root: Path, home: Path, options: RewindOptions = OPTIONS) -> str:
    return take(store, root, home, options)


def fresh_snapshot(tmp_path: Path, root: Path, home: Path) -> str:
    """The same files snapshotted by a store with no history (every file read)."""
    with ObjectStore.open(tmp_path / f"fresh-{time.time_ns()}.db", root, create=True) as s:
        return snap(s, root, home)


def next_second() -> None:
    """Wait for what was written so far to leave the racy window, then for the clock to enter a
    new second (10 ms into it). Without the first wait, files written in the last 40 ms of a
    second are racy for a snapshot taken 10 ms into the next, and it checks them all in Python."""
    time.sleep(changed.FINE_RACY_NS / 1e9)
    now = time.time_ns()
    time.sleep((changed.SECOND_NS - now % changed.SECOND_NS) / 1e9 + 0.01)


def python_lstats(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """The project paths this process lstat's from now on."""
    seen: list[str] = []
    real = os.lstat

    def counting(path: str | os.PathLike[str], *args: object, **kwargs: object) -> os.stat_result:
        if str(path).startswith(f"{root}/"):
            seen.append(str(path)[len(str(root)) + 1 :])
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "lstat", counting)
    return seen


def test_a_later_snapshot_stats_in_python_only_what_git_names(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    next_second()
    first = snap(store, root, home)
    assert index_path(store.path).is_file()
    next_second()
    (root / "pkg1/mod1.py").write_text("value = 1 and more\n")  # another size
    (root / "pkg2/mod2.py").unlink()
    (root / "pkg3/new.py").write_text("new\n")
    lstats = python_lstats(monkeypatch, root)
    second = snap(store, root, home)
    assert sorted(lstats) == ["pkg1/mod1.py", "pkg2/mod2.py", "pkg3/new.py"]  # not the other 38
    kinds = {c.path: c.kind for c in trees.diff(store.tree, first, second)}
    assert kinds == {"pkg1/mod1.py": "modified", "pkg2/mod2.py": "deleted", "pkg3/new.py": "added"}
    assert second == fresh_snapshot(tmp_path, root, home)


def test_a_same_size_write_in_the_second_of_the_last_snapshot_is_seen(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    """git (unless built with USE_NSEC) compares whole seconds: the index must not vouch for a file
    whose times lie in the snapshot's own second."""
    path = root / "pkg0/mod0.py"
    next_second()
    path.write_text("value = AAA\n")
    time.sleep(0.06)  # a tick behind: not racy, so the stat cache trusts it
    snap(store, root, home)
    with open(path, "r+") as handle:  # in place: the same inode, the same size, the same second
        handle.write("value = BBB\n")
    second = snap(store, root, home)
    assert dict(trees.walk(store.tree, second))["pkg0/mod0.py"].id == object_id("blob", b"value = BBB\n")
    assert second == fresh_snapshot(tmp_path, root, home)


def test_a_mode_change_is_seen_whatever_the_users_git_config_says(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "user").mkdir()
    (tmp_path / "user/.gitconfig").write_text(
        "[core]\n\tfileMode = false\n\ttrustCtime = false\n\tcheckStat = minimal\n"
    )
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    next_second()
    snap(store, root, home)
    next_second()
    (root / "pkg3/mod3.py").chmod(0o755)  # only the mode and the ctime change
    second = snap(store, root, home)
    assert dict(trees.walk(store.tree, second))["pkg3/mod3.py"].mode == "100755"


def test_an_index_not_written_for_this_cache_is_not_trusted(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    """Another process's index (here: one of a store that saw the file after its change) would
    vouch for a file the stat cache still holds at its old content."""
    next_second()
    snap(store, root, home)
    next_second()
    (root / "pkg1/mod1.py").write_text("value = 1 and more\n")
    next_second()  # so that the other index vouches for it
    fresh_snapshot(tmp_path, root, home)
    shutil.copy(next(tmp_path.glob("fresh-*.index")), index_path(store.path))
    second = snap(store, root, home)
    assert dict(trees.walk(store.tree, second))["pkg1/mod1.py"].id == object_id(
        "blob", b"value = 1 and more\n"
    )


@pytest.mark.parametrize("damage", ["deleted", "truncated", "garbage"])
def test_a_lost_or_damaged_index_costs_a_full_stat_never_a_wrong_snapshot(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore, damage: str
) -> None:
    next_second()
    snap(store, root, home)
    index = index_path(store.path)
    if damage == "deleted":
        index.unlink()
    elif damage == "truncated":
        index.write_bytes(index.read_bytes()[:100])
    else:
        index.write_bytes(b"DIRC" + os.urandom(200))
    (root / "pkg2/mod2.py").write_text("changed\n")
    second = snap(store, root, home)
    assert second == fresh_snapshot(tmp_path, root, home)
    assert snap(store, root, home) == second  # a good index again


def test_a_snapshot_killed_between_its_index_and_its_cache_leaves_the_next_one_right(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    """A real process writes the index of its snapshot, then is killed before its stat cache is
    saved: the index on disk then vouches for files the saved cache holds at their old content."""
    next_second()
    snap(store, root, home)
    next_second()
    for i in range(1, 4):  # 3 of 40 rows off the index: more than a 16th, a new index is written
        (root / f"pkg{i}/mod{i}.py").write_text(f"value = {i} and more\n")
    next_second()  # so that the killed snapshot's index vouches for them
    script = textwrap.dedent(
        """
        import os, signal, sys
        from pathlib import Path
        from auger.core.rewind import snapshot
        from auger.core.rewind.objects import ObjectStore
        from auger.core.rewind.options import RewindOptions
        snapshot.REBASE_FROM = 0
        ObjectStore.save_cache = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        store, root, home = sys.argv[1:]
        with ObjectStore.open(Path(store), root, create=False) as s:
            snapshot.take(s, Path(root), Path(home), RewindOptions(max_file_bytes=64 * 1024))
        """
    )
    before = index_path(store.path).read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", script, str(store.path), str(root), str(home)],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert index_path(store.path).read_bytes() != before  # its index is there, its cache is not
    second = snap(store, root, home)
    assert dict(trees.walk(store.tree, second))["pkg2/mod2.py"].id == object_id(
        "blob", b"value = 2 and more\n"
    )
    assert second == fresh_snapshot(tmp_path, root, home)


def test_a_lower_max_file_mb_drops_a_file_the_index_vouches_for(
    root: Path, home: Path, store: ObjectStore
) -> None:
    (root / "big.bin").write_bytes(b"x" * 32 * 1024)
    next_second()
    first = snap(store, root, home)
    assert "big.bin" in dict(trees.walk(store.tree, first))
    second = snap(store, root, home, RewindOptions(max_file_bytes=16 * 1024))
    assert "big.bin" not in dict(trees.walk(store.tree, second))


def test_a_cache_far_off_its_index_writes_a_new_one(
    root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "REBASE_FROM", 4)
    next_second()  # no row racy: none hashed again
    snap(store, root, home)
    index = index_path(store.path).read_bytes()
    for i in range(3):
        (root / f"pkg{i}/mod{i}.py").write_text("changed\n")
    snap(store, root, home)
    assert index_path(store.path).read_bytes() == index  # 3 rows off it: checked in Python
    for i in range(4, 8):
        (root / f"pkg{i % 4}/mod{i}.py").write_text("changed\n")
    snap(store, root, home)
    assert index_path(store.path).read_bytes() != index
    assert store.stat_cache().unsure == set()


def test_rows_git_cannot_vouch_for_are_written_again_once_a_second_old(
    root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "REBASE_FROM", 4)
    next_second()
    for path in root.rglob("*.py"):
        path.write_text(path.read_text())  # all 40 changed in the second of the first snapshot
    time.sleep(0.06)  # a tick behind: not racy
    snap(store, root, home)
    next_second()
    snap(store, root, home)  # git names all 40 (written zeroed), Python finds them unchanged
    lstats = python_lstats(monkeypatch, root)
    snap(store, root, home)
    assert lstats == []
