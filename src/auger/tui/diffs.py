"""Diffs for file-changing tool calls, computed from the call's arguments (no Textual here).

`edit_file` gives old/new strings; `write_file` gives the whole new content. The project file is
read (when small) only to number the lines; the diff never depends on whether the tool ran yet.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_READ = 1_000_000
FILE_TOOLS = frozenset({"write_file", "edit_file"})


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str
    number: int | None = None  # line number in the new (add/ctx) or old (del) file


def resolve(project_root: Path, path: str) -> Path:
    """A tool's virtual path (rooted at the project) as a real path."""
    return project_root / path.lstrip("/")


def _start_line(file: Path, old: str, new: str) -> int:
    try:
        if not file.is_file() or file.stat().st_size > MAX_READ:
            return 1
        content = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 1
    for needle in (old, new):
        index = content.find(needle) if needle else -1
        if index >= 0:
            return content.count("\n", 0, index) + 1
    return 1


def _lines(old: str, new: str, start: int) -> list[DiffLine]:
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        if out:
            out.append(DiffLine("hunk", "⋯"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(DiffLine("ctx", b[j], start + j) for j in range(j1, j2))
                continue
            out.extend(DiffLine("del", a[i], start + i) for i in range(i1, i2))
            out.extend(DiffLine("add", b[j], start + j) for j in range(j1, j2))
    return out


def tool_diff(name: str, args: dict[str, Any], project_root: Path) -> list[DiffLine] | None:
    """The diff a `write_file`/`edit_file` call makes, or None for other tools."""
    if name not in FILE_TOOLS:
        return None
    path = str(args.get("file_path") or args.get("path") or "")
    if name == "write_file":
        return _lines("", str(args.get("content") or ""), 1)
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    return _lines(old, new, _start_line(resolve(project_root, path), old, new))


def diff_stats(lines: list[DiffLine]) -> str:
    added = sum(1 for line in lines if line.kind == "add")
    removed = sum(1 for line in lines if line.kind == "del")
    return f"+{added} -{removed}"
