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
import subprocess
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


def list_files(root: Path, home: Path) -> list[str]:
    """Relative posix paths of the files (and symlinks) a snapshot of `root` covers."""
    anchored = [*_virtualenvs(root), *_inside(root, home)]
    try:
        return _git_list(root, home, anchored)
    except FileNotFoundError:  # no git program
        log.warning("git not found: snapshots of %s ignore .gitignore", root)
        return _walk(root, {a.strip("/") for a in anchored})


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


def _empty_git_dir(home: Path) -> Path:
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


def _git_list(root: Path, home: Path, anchored: list[str]) -> list[str]:
    excludes = [f"--exclude={d}/" for d in EXCLUDED_DIRS] + [f"--exclude={a}" for a in anchored]
    proc = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--exclude-standard", *excludes],
        cwd=root,
        env=git_env(_empty_git_dir(home), root),
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip().splitlines()
        raise RewindError(f"Cannot list the files of {root}: {detail[-1] if detail else 'git failed'}.")
    out: list[str] = []
    for raw in proc.stdout.split(b"\0"):
        if not raw or raw.endswith(b"/"):  # "sub/": a nested git repository
            continue
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            log.warning("not snapshotted (name is not UTF-8): %r", raw)
    return out


def _walk(root: Path, anchored: set[str]) -> list[str]:
    out: list[str] = []
    stack = [""]
    while stack:
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
