"""Putting a project's files back as they were before a turn.

For every path the agent changed in the turns being undone, the target is its state before the
first of those turns that touched it (absent: the file is removed), and the agent's last state is
its state after the last one. A file already at its target is left alone; one still as the agent
left it is restored; anything else was changed by hand (or by another thread) since, and is a
*conflict*: listed, and only overwritten when forced. A path that is now a folder, or below a
file or symlink, is never touched. Everything is checked before the first write, so a refusal
changes nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from auger.core.rewind.changed import LINK, git_mode
from auger.core.rewind.objects import object_id
from auger.core.rewind.snapshot import read_content
from auger.core.rewind.trees import Change, Entry
from auger.errors import RewindError

OTHER = Entry("other", "")  # a folder, fifo or unreadable file where a file is expected


@dataclass(frozen=True)
class Step:
    path: str
    target: Entry | None  # None: remove the file
    current: Entry | None

    @property
    def verb(self) -> str:
        if self.target is None:
            return "removed"
        return "recreated" if self.current is None else "restored"


@dataclass
class Plan:
    root: Path
    steps: list[Step] = field(default_factory=list)  # what to do (conflicts included when forced)
    conflicts: list[Step] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # "path: why"


def plan(root: Path, undone: Iterable[Sequence[Change]], *, force: bool) -> Plan:
    """What restoring `root` to before the changes in `undone` (oldest turn first) takes."""
    target: dict[str, Entry | None] = {}
    left: dict[str, Entry | None] = {}
    for changes in undone:
        for change in changes:
            target.setdefault(change.path, change.old)
            left[change.path] = change.new
    out = Plan(root)
    for path in sorted(target):
        _check_path(path)
        current = disk_entry(root, path)
        if current == target[path]:
            continue
        step = Step(path, target[path], current)
        if current == OTHER:
            out.blocked.append(f"{path}: a folder or unreadable file is there now")
        elif current != left[path]:
            out.conflicts.append(step)
            if force:
                out.steps.append(step)
        else:
            out.steps.append(step)
    removed = {s.path for s in out.steps if s.target is None}
    for path in sorted({s.path for s in [*out.steps, *out.conflicts]}):  # never through a symlinked folder
        if why := _parent_problem(root, path, removed):
            out.blocked.append(f"{path}: {why}")
    return out


def disk_entry(root: Path, path: str) -> Entry | None:
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
        mode = git_mode(st.st_mode)
        if mode is None:
            return OTHER
        return Entry(mode, object_id("blob", read_content(full, mode)))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return OTHER


def apply(p: Plan, contents: Mapping[str, bytes]) -> None:
    """Carry out `p` (checked and with every target's content at hand)."""
    for step in p.steps:
        if step.target is None:
            _remove(p.root, step.path)
    mask = _umask()
    for step in p.steps:
        if step.target is not None:
            _write(p.root / step.path, step.target, contents[step.target.id], mask)


def _check_path(path: str) -> None:
    parts = path.split("/")
    if path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise RewindError(
            f"The snapshot store holds a bad path {path!r}; it is damaged. Nothing was changed."
        )


def _parent_problem(root: Path, path: str, removed: set[str]) -> str | None:
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        parent = "/".join(parts[:i])
        try:
            st = os.lstat(os.path.join(root, parent))
        except FileNotFoundError:
            return None  # created on the way
        if not stat.S_ISDIR(st.st_mode) and parent not in removed:
            return f"{parent} is a {'symlink' if stat.S_ISLNK(st.st_mode) else 'file'} now"
    return None


def _remove(root: Path, path: str) -> None:
    full = root / path
    full.unlink(missing_ok=True)
    folder = full.parent
    while folder != root:  # folders the removed files leave empty go too
        try:
            folder.rmdir()
        except OSError:
            break
        folder = folder.parent


def _write(full: Path, target: Entry, data: bytes, mask: int) -> None:
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = full.with_name(f".{full.name}.auger-rewind-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    if target.mode == LINK:
        os.symlink(os.fsdecode(data), tmp)
    else:
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, (0o777 if target.mode == "100755" else 0o666) & ~mask)
    os.replace(tmp, full)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
