"""`@path` mentions: a git-aware file index, fuzzy matching, and inlining files into a prompt."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

MAX_FILES = 50_000
TTL = 10.0  # s: how long a scan of the files is used
MAX_INLINE_BYTES = 64 * 1024
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache"})
MENTION = re.compile(r"(?:(?<=\s)|^)@([^\s@]+)")


class FileIndex:
    """The project's files (git ls-files when it is a repository), refreshed after `TTL` seconds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] = []
        self._at = 0.0

    def files(self) -> list[str]:
        if not self._files or time.monotonic() - self._at > TTL:
            self._files = self._scan()
            self._at = time.monotonic()
        return self._files

    def _scan(self) -> list[str]:
        if (self.root / ".git").exists():
            try:
                out = subprocess.run(
                    ["git", "ls-files", "-co", "--exclude-standard"],
                    cwd=self.root,
                    capture_output=True,
                    text=True,
                    timeout=5,
                    check=True,
                ).stdout
                return out.splitlines()[:MAX_FILES]
            except (OSError, subprocess.SubprocessError):
                pass
        found: list[str] = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            rel = Path(folder).relative_to(self.root)
            found.extend(str(rel / n) if str(rel) != "." else n for n in sorted(names))
            if len(found) >= MAX_FILES:
                break
        return found[:MAX_FILES]

    def match(self, query: str, limit: int) -> list[str]:
        """The `limit` files that match `query` best (fuzzy: its letters in order)."""
        if not query:
            return self.files()[:limit]
        scored = [(s, p) for p in self.files() if (s := _score(query, p)) is not None]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [p for _, p in scored[:limit]]


def _score(query: str, path: str) -> float | None:
    """Higher is better; None when `query` is not a subsequence of `path`."""
    low = path.lower()
    base_start = low.rfind("/") + 1
    pos, score, last = 0, 0.0, -2
    for ch in query.lower():
        found = low.find(ch, pos)
        if found < 0:
            return None
        score += 3.0 if found == last + 1 else 1.0
        if found >= base_start:
            score += 1.0
        if found == 0 or low[found - 1] in "/_-.":
            score += 1.5
        last, pos = found, found + 1
    if query.lower() in low[base_start:]:
        score += 5.0
    return score - len(path) * 0.01


def mention_at(text: str, cursor: int) -> tuple[int, str] | None:
    """The `@partial` being typed at `cursor` (offset into `text`): (start of the @, partial)."""
    start = text.rfind("@", 0, cursor)
    if start < 0 or (start > 0 and not text[start - 1].isspace()):
        return None
    partial = text[start + 1 : cursor]
    if any(ch.isspace() for ch in partial):
        return None
    return start, partial


def inline_mentions(prompt: str, root: Path, cap: int = MAX_INLINE_BYTES) -> tuple[str, list[str]]:
    """The prompt with every `@path` naming a project file appended as a fenced block (size-capped).
    Returns (prompt, inlined paths)."""
    blocks: list[str] = []
    inlined: list[str] = []
    for rel in dict.fromkeys(MENTION.findall(prompt)):
        path = (root / rel).resolve()
        if not path.is_file() or not path.is_relative_to(root.resolve()):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:4096]:
            continue
        text = data[:cap].decode("utf-8", errors="replace")
        note = f"\n… (truncated: {len(data) - cap} more bytes)" if len(data) > cap else ""
        blocks.append(f'<file path="{rel}">\n{text}{note}\n</file>')
        inlined.append(rel)
    if not blocks:
        return prompt, []
    return prompt + "\n\n" + "\n\n".join(blocks), inlined
