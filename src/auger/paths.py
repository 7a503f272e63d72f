"""Where things live: AUGER_HOME (default ~/.auger), the project root and its git branch."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# `-c` settings for every `git` auger itself runs: a cloned folder's `.git/config` may name programs
# git would run (fsmonitor at every index read, hooks, pagers, external diff); these win over it.
GIT_SAFE = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "diff.external=",
    "-c", "core.sshCommand=ssh",
    "-c", "core.untrackedCache=false",
)  # fmt: skip


def auger_home(env: Mapping[str, str] | None = None) -> Path:
    """The user's auger folder: `$AUGER_HOME`, else `~/.auger`."""
    raw = (os.environ if env is None else env).get("AUGER_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".auger"


def project_root(cwd: Path | None = None) -> Path:
    """Nearest folder at or above `cwd` holding `.git`, else `cwd` itself."""
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def git_branch(root: Path, commit_chars: int = 12) -> str | None:
    """The checked-out branch of `root`, read from .git/HEAD (no subprocess); for a detached HEAD
    the commit's first `commit_chars` hex digits."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            line = git.read_text(encoding="utf-8").strip()
            git = (root / line.removeprefix("gitdir:").strip()).resolve()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return head[:commit_chars] or None  # detached: the commit


def logs_dir(home: Path) -> Path:
    return home / "logs"
