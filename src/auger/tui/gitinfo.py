"""The current git branch, read from `.git/HEAD` (no subprocess on the paint path)."""

from __future__ import annotations

from pathlib import Path


def git_branch(root: Path) -> str | None:
    dot_git = root / ".git"
    try:
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            target = dot_git.read_text().strip().removeprefix("gitdir:").strip()
            dot_git = (root / target).resolve()
        head = (dot_git / "HEAD").read_text().strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return head[:8] or None
