"""The agent's project files: the list `@path` completion offers (git-aware), and how the files a
prompt names as `@path` are inlined into it. The agent does both on its side, so over `--connect`
they are the server's files (`auger.core.operations.PROJECT_FILES`; `TurnOptions.mentions`, read
through the agent's backend by `auger.core.session.turn`). Standard library only."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from auger.paths import GIT_SAFE

MAX_FILES = 50_000
MAX_INLINE_BYTES = 64 * 1024
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache"})
MENTION = re.compile(r"(?:(?<=\s)|^)@([^\s@]+)")


def project_files(root: Path) -> list[str]:
    """The project's files, relative to `root` (git ls-files when it is a repository), at most
    MAX_FILES."""
    if (root / ".git").exists():
        try:
            out = subprocess.run(
                ["git", *GIT_SAFE, "ls-files", "-co", "--exclude-standard"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout
            return out.splitlines()[:MAX_FILES]
        except (OSError, subprocess.SubprocessError):
            pass
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        rel = Path(folder).relative_to(root)
        found.extend(str(rel / n) if str(rel) != "." else n for n in sorted(names))
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def mentioned(text: str) -> list[str]:
    """The `@path`s `text` names, each once, in order."""
    return list(dict.fromkeys(MENTION.findall(text)))


def with_files(
    prompt: str, files: list[tuple[str, bytes]], cap: int = MAX_INLINE_BYTES
) -> tuple[str, list[str]]:
    """The prompt with each (path, content) appended as a fenced block (size-capped; a binary file
    is left out). Returns (prompt, inlined paths)."""
    blocks: list[str] = []
    inlined: list[str] = []
    for rel, data in files:
        if b"\0" in data[:4096]:
            continue
        text = data[:cap].decode("utf-8", errors="replace")
        note = f"\n… (truncated: {len(data) - cap} more bytes)" if len(data) > cap else ""
        blocks.append(f'<file path="{rel}">\n{text}{note}\n</file>')
        inlined.append(rel)
    if not blocks:
        return prompt, []
    return prompt + "\n\n" + "\n\n".join(blocks), inlined
