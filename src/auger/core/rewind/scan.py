"""Which files a snapshot covers: the project's files minus .gitignore'd ones and default excludes.

`git ls-files --others --exclude-standard` does the walk and applies every `.gitignore` of the
work tree (and the user's global excludes) exactly as git would. It runs against a private, empty
git folder under `$AUGER_HOME/snapshots/` — never the project's own `.git`, which is not read or
written. Without a `git` program the walk is done here, with the default excludes only.

Always left out: `.git` folders, nested git repositories (their files belong to them), virtualenvs
(`venv/`, `.venv/`, any top-level folder holding a `pyvenv.cfg`), `node_modules/`, Python caches,
and AUGER_HOME when it lies inside the project.
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path

from auger.errors import RewindError

log = logging.getLogger("auger.rewind")
EXCLUDED_DIRS = (
    "node_modules",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
)
GIT_TIMEOUT_S = 120


class Listing:
    """The listing of a project, started at once (`git ls-files` runs while the caller reads its
    stat cache), collected by `result()`."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.anchored = [*_virtualenvs(root), *_inside(root, home)]
        self.proc: subprocess.Popen[bytes] | None = None
        # git's stderr goes to a file read at the end (a full pipe would stall it); closed by result()
        self._err = tempfile.TemporaryFile()  # noqa: SIM115
        excludes = [f"--exclude={d}/" for d in EXCLUDED_DIRS] + [f"--exclude={a}" for a in self.anchored]
        try:
            self.proc = subprocess.Popen(
                ["git", "ls-files", "-z", "--others", "--exclude-standard", *excludes],
                cwd=root,
                env=git_env(empty_git_dir(home), root),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._err,
            )
        except FileNotFoundError:  # no git program
            log.warning("git not found: snapshots of %s ignore .gitignore", root)

    @property
    def by_git(self) -> bool:
        """Whether git lists the project (there is a `git` program)."""
        return self.proc is not None

    def abandon(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
        self._err.close()

    def result(self, limit: int | None = None) -> list[str]:
        """The paths; past `limit` paths the listing stops (a snapshot of $HOME is refused early)."""
        if self.proc is None:
            self._err.close()
            return _walk(self.root, {a.strip("/") for a in self.anchored}, limit)
        proc, count = self.proc, 0
        chunks: list[bytes] = []
        assert proc.stdout is not None
        fd, deadline = proc.stdout.fileno(), time.monotonic() + GIT_TIMEOUT_S
        try:
            while (ready := _readable(fd, deadline)) and (chunk := os.read(fd, 1 << 16)):
                chunks.append(chunk)
                count += chunk.count(b"\0")
                if limit is not None and count > limit:
                    break
            else:
                if ready:  # the whole listing is read
                    proc.wait()
            if proc.returncode is None:  # over the limit, or past its time
                proc.kill()
                proc.wait()
            self._err.seek(0)
            err = self._err.read()
        finally:
            proc.stdout.close()
            self._err.close()
        if proc.returncode != 0 and (limit is None or count <= limit):  # not killed by us
            detail = err.decode(errors="replace").strip().splitlines()
            why = detail[-1] if detail else f"git ls-files stopped (exit {proc.returncode})"
            raise RewindError(f"Cannot list the files of {self.root}: {why}.")
        return _paths(b"".join(chunks))


def _readable(fd: int, deadline: float) -> bool:
    """Wait for output on `fd` until `deadline` (a thread for a timer costs more than the listing)."""
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
    return bool(ready)


def _paths(out: bytes) -> list[str]:
    """ls-files -z output -> paths; "sub/" entries (nested git repositories) and names that are
    not UTF-8 are left out."""
    try:
        names = out.decode("utf-8").split("\0")
    except UnicodeDecodeError:
        names = []
        for raw in out.split(b"\0"):
            try:
                names.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                log.warning("not snapshotted (name is not UTF-8): %r", raw)
    if names and not names[-1]:
        names.pop()  # after the last NUL
    if "" in names or b"/\0" in out:
        return [n for n in names if n and not n.endswith("/")]
    return names


def _virtualenvs(root: Path) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return [
                f"/{e.name}/"
                for e in entries
                if e.is_dir(follow_symlinks=False) and os.path.exists(os.path.join(e.path, "pyvenv.cfg"))
            ]
    except OSError:
        return []


def _inside(root: Path, home: Path) -> list[str]:
    try:
        rel = home.resolve().relative_to(root.resolve())
    except ValueError:
        return []
    return [f"/{rel.as_posix()}/"] if rel.parts else []


def empty_git_dir(home: Path) -> Path:
    """A git folder with nothing in it: `ls-files` needs a repository, and must not use theirs."""
    git_dir = home / "snapshots" / "git-empty"
    if not (git_dir / "HEAD").is_file():
        for sub in ("objects", "refs"):
            (git_dir / sub).mkdir(parents=True, exist_ok=True)
        tmp = git_dir / f"HEAD.{os.getpid()}"
        tmp.write_text("ref: refs/heads/main\n", encoding="utf-8")
        tmp.replace(git_dir / "HEAD")
    return git_dir


def git_env(git_dir: Path, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_WORK_TREE=str(root),
        GIT_INDEX_FILE=str(git_dir / "no-index"),  # never created: everything counts as untracked
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
    )
    return env


def _walk(root: Path, anchored: set[str], limit: int | None = None) -> list[str]:
    out: list[str] = []
    stack = [""]
    while stack and (limit is None or len(out) <= limit):
        folder = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, folder) if folder else root))
        except OSError:
            continue
        for entry in entries:
            rel = f"{folder}/{entry.name}" if folder else entry.name
            if entry.is_dir(follow_symlinks=False):
                nested_repo = os.path.exists(os.path.join(entry.path, ".git"))
                if entry.name not in (".git", *EXCLUDED_DIRS) and rel not in anchored and not nested_repo:
                    stack.append(rel)
            else:
                out.append(rel)
    return out
