"""The snapshot store on real files: incremental snapshots, what is left out, restoring, diffs."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.rewind import changed, restore, trees
from auger.core.rewind.objects import ObjectStore
from auger.core.rewind.options import RewindOptions
from auger.core.rewind.patch import unified
from auger.core.rewind.snapshot import take
from auger.errors import RewindError

OPTIONS = RewindOptions(max_file_bytes=64 * 1024)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    for i in range(60):
        folder = path / f"pkg{i % 6}" / f"sub{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"value = {i}\n" * (i + 1))
    (path / "README.md").write_text("# project\n")
    return path


@pytest.fixture
def store(tmp_path: Path, root: Path) -> Iterator[ObjectStore]:
    with ObjectStore.open(tmp_path / "store.db", root, create=True) as s:
        yield s


def snap(store: ObjectStore, root: Path, home: Path, options: RewindOptions = OPTIONS) -> str:
    return take(store, root, home, options)


def files_of(store: ObjectStore, tree: str) -> dict[str, trees.Entry]:
    return dict(trees.walk(store.tree, tree))


def fresh_snapshot(tmp_path: Path, root: Path, home: Path) -> str:
    """The same files snapshotted by a store with no history (a full build, no stat cache)."""
    with ObjectStore.open(
        tmp_path / f"fresh-{len(list(tmp_path.glob('fresh-*')))}.db", root, create=True
    ) as s:
        return snap(s, root, home)


def test_incremental_snapshots_equal_a_fresh_one_after_every_kind_of_change(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    first = snap(store, root, home)
    assert snap(store, root, home) == first  # nothing changed: the same snapshot
    assert first == fresh_snapshot(tmp_path, root, home)

    (root / "pkg0/sub0/mod0.py").write_text("changed\n")  # modified
    (root / "pkg1/sub1/mod1.py").unlink()  # deleted
    (root / "pkg2/sub2/mod2.py").rename(root / "pkg2/moved.py")  # moved
    (root / "new/deep/er").mkdir(parents=True)
    (root / "new/deep/er/file.txt").write_text("new\n")  # added in new folders
    shutil.rmtree(root / "pkg5")  # a whole folder gone
    (root / "pkg3/sub3/mod3.py").chmod(0o755)  # executable now
    (root / "link").symlink_to("README.md")
    second = snap(store, root, home)
    assert second == fresh_snapshot(tmp_path, root, home)
    changed = {c.path: c.kind for c in trees.diff(store.tree, first, second)}
    assert changed["pkg0/sub0/mod0.py"] == "modified" and changed["pkg1/sub1/mod1.py"] == "deleted"
    assert changed["pkg2/sub2/mod2.py"] == "deleted" and changed["pkg2/moved.py"] == "added"
    assert changed["new/deep/er/file.txt"] == "added" and changed["pkg3/sub3/mod3.py"] == "modified"
    assert changed["link"] == "added" and not any(p.startswith("pkg4/") for p in changed)
    assert sum(p.startswith("pkg5/") for p in changed) == 10
    link = files_of(store, second)["link"]
    assert link.mode == "120000" and store.read(link.id) == b"README.md"
    assert files_of(store, second)["pkg3/sub3/mod3.py"].mode == "100755"


def test_a_same_size_rewrite_with_the_old_mtime_is_still_seen(
    root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changed, "FINE_RACY_NS", 0)  # trust the stat cache even for fresh files
    path = root / "pkg0/sub0/mod0.py"
    old = os.stat(path)
    first = snap(store, root, home)
    path.write_text("value = X\n")  # same length as "value = 0\n"
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # mtime as before: only ctime tells
    second = snap(store, root, home)
    assert [c.path for c in trees.diff(store.tree, first, second)] == ["pkg0/sub0/mod0.py"]


def test_ignored_large_nested_virtualenv_and_home_files_are_left_out(
    tmp_path: Path, root: Path, store: ObjectStore
) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n!node_modules/\n")
    (root / "app.log").write_text("log\n")
    (root / "build").mkdir()
    (root / "build/out.js").write_text("built\n")
    (root / "node_modules/dep").mkdir(parents=True)  # excluded even against the .gitignore's "!"
    (root / "node_modules/dep/index.js").write_text("dep\n")
    (root / "pkg0/__pycache__").mkdir()
    (root / "pkg0/__pycache__/x.cpython-311.pyc").write_bytes(b"\0pyc")
    (root / "myenv/lib").mkdir(parents=True)  # a virtualenv by its pyvenv.cfg, whatever its name
    (root / "myenv/pyvenv.cfg").write_text("home = /usr\n")
    (root / "myenv/lib/site.py").write_text("venv\n")
    (root / "vendor/lib").mkdir(parents=True)  # a nested git repository: its files are its own
    subprocess.run(["git", "init", "-q", str(root / "vendor/lib")], check=True)
    (root / "vendor/lib/code.c").write_text("int x;\n")
    (root / "huge.bin").write_bytes(b"x" * (OPTIONS.max_file_bytes + 1))
    (root / ".git").mkdir()
    (root / ".git/config").write_text("[core]\n")
    home = root / ".auger-home"  # AUGER_HOME inside the project
    home.mkdir()
    (home / "threads.db").write_bytes(b"db")
    tree = snap(store, root, home)
    names = set(files_of(store, tree))
    assert ".gitignore" in names and "README.md" in names and "pkg0/sub0/mod0.py" in names
    left_out = ("app.log", "build/", "node_modules/", "__pycache__", "myenv/", "vendor/", "huge.bin", ".git/")
    assert [n for n in names if any(part in n for part in left_out) or n.startswith(".auger-home")] == []
    assert not (root / ".git/index").exists()  # the project's .git is not used


def test_without_git_the_walk_keeps_the_default_excludes(
    root: Path, home: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "node_modules/x").mkdir(parents=True)
    (root / "node_modules/x/y.js").write_text("y\n")
    (root / ".git").mkdir()
    (root / ".git/HEAD").write_text("ref\n")
    monkeypatch.setenv("PATH", str(root / "no-such-bin"))
    names = set(files_of(store, snap(store, root, home)))
    assert "README.md" in names and len(names) == 61
    assert not any(n.startswith(("node_modules", ".git")) for n in names)


def test_a_project_over_max_files_is_refused(root: Path, home: Path, store: ObjectStore) -> None:
    with pytest.raises(
        RewindError, match=r"has more than \[rewind\] max_files = 10 files, so its turns are not snapshotted"
    ):
        snap(store, root, home, RewindOptions(max_files=10))
    assert snap(store, root, home, RewindOptions(max_files=61))  # exactly at the limit is fine


def test_restore_puts_back_contents_modes_links_and_removes_what_was_created(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "current").symlink_to("README.md")
    before = snap(store, root, home)
    (root / "run.sh").chmod(0o644)
    (root / "current").unlink()
    (root / "current").symlink_to("pkg0")
    (root / "README.md").unlink()
    (root / "a/b/c").mkdir(parents=True)
    (root / "a/b/c/new.txt").write_text("new\n")
    (root / "pkg1/sub1/mod1.py").write_text("edited\n")
    after = snap(store, root, home)
    changes = list(trees.diff(store.tree, before, after))
    plan = restore.plan(root, [changes], force=False)
    assert plan.conflicts == [] and plan.blocked == []
    assert {s.path: s.verb for s in plan.steps} == {
        "README.md": "recreated",
        "a/b/c/new.txt": "removed",
        "current": "restored",
        "pkg1/sub1/mod1.py": "restored",
        "run.sh": "restored",
    }
    restore.apply(plan, store.read_many(s.target.id for s in plan.steps if s.target))
    assert fresh_snapshot(tmp_path, root, home) == before
    assert not (root / "a").exists()  # the folders the new file needed went with it
    assert os.readlink(root / "current") == "README.md" and os.access(root / "run.sh", os.X_OK)


def test_restore_refuses_hand_edits_and_files_turned_into_folders(
    root: Path, home: Path, store: ObjectStore
) -> None:
    before = snap(store, root, home)
    (root / "README.md").write_text("agent\n")
    (root / "pkg0/sub0/mod0.py").write_text("agent\n")
    after = snap(store, root, home)
    changes = list(trees.diff(store.tree, before, after))
    (root / "README.md").write_text("the user's own edit\n")
    (root / "pkg0/sub0/mod0.py").unlink()
    (root / "pkg0/sub0/mod0.py").mkdir()
    plan = restore.plan(root, [changes], force=False)
    assert [c.path for c in plan.conflicts] == ["README.md"] and plan.steps == []
    assert plan.blocked == ["pkg0/sub0/mod0.py: a folder or unreadable file is there now"]
    forced = restore.plan(root, [changes], force=True)
    assert [s.path for s in forced.steps] == ["README.md"]


def test_restore_never_reaches_through_a_folder_turned_symlink(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    before = snap(store, root, home)
    (root / "lib").mkdir()
    (root / "lib/made.txt").write_text("agent\n")
    (root / "pkg0/sub0/mod0.py").write_text("agent\n")
    after = snap(store, root, home)
    changes = list(trees.diff(store.tree, before, after))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "made.txt").write_text("agent\n")  # the same content, outside the project
    shutil.rmtree(root / "lib")
    (root / "lib").symlink_to(outside)
    shutil.rmtree(root / "pkg0/sub0")
    (root / "pkg0/sub0").symlink_to(outside)
    plan = restore.plan(root, [changes], force=True)
    assert sorted(plan.blocked) == [
        "lib/made.txt: lib is a symlink now",
        "pkg0/sub0/mod0.py: pkg0/sub0 is a symlink now",
    ]
    assert (outside / "made.txt").read_text() == "agent\n"


def test_the_diff_applies_in_reverse_with_git_apply(
    tmp_path: Path, root: Path, home: Path, store: ObjectStore
) -> None:
    (root / "tail.txt").write_text("no newline at the end")
    (root / "gone.txt").write_text("going\naway\n")
    (root / "page.txt").write_text("form\x0cfeed\nline two\n")
    before = snap(store, root, home)
    saved = tmp_path / "before"
    shutil.copytree(root, saved, symlinks=True)
    (root / "tail.txt").write_text("no newline at the end, still")
    (root / "gone.txt").unlink()
    (root / "page.txt").write_text("form\x0cfeed\nline 2\n")
    (root / "pkg0/sub0/mod0.py").write_text("value = 0\nvalue = 00\n")
    (root / "new").mkdir()
    (root / "new/file.txt").write_text("fresh\n")
    (root / "pkg2/sub2/mod2.py").chmod(0o755)
    after = snap(store, root, home)
    text = unified(trees.diff(store.tree, before, after), store.read)
    assert "\\ No newline at end of file" in text and "new file mode 100644" in text
    assert "deleted file mode 100644" in text and "old mode 100644\nnew mode 100755" in text
    work = tmp_path / "work"
    shutil.copytree(root, work, symlinks=True)
    proc = subprocess.run(["git", "apply", "-R", "-"], input=text, text=True, cwd=work, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert fresh_snapshot(tmp_path, work, home) == fresh_snapshot(tmp_path, saved, home)


def test_binary_changes_are_named_not_printed(root: Path, home: Path, store: ObjectStore) -> None:
    before = snap(store, root, home)
    (root / "image.png").write_bytes(b"\x89PNG\0\0\0")
    text = unified(trees.diff(store.tree, before, snap(store, root, home)), store.read)
    assert text == (
        "diff --git a/image.png b/image.png\nnew file mode 100644\n"
        "Binary files /dev/null and b/image.png differ\n"
    )


def test_a_missing_or_damaged_store_is_a_clear_error(tmp_path: Path, root: Path) -> None:
    with pytest.raises(RewindError, match="are missing"):
        ObjectStore.open(tmp_path / "nope.db", root, create=False)
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(RewindError, match="is unreadable"):
        ObjectStore.open(bad, root, create=False)
