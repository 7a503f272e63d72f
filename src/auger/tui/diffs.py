"""Diffs for file-changing tool calls: whole lines, with their indentation, `CONTEXT` lines of
context and the file's line numbers (difflib; no Textual here).

`edit_file` names a string to replace, often only part of a line. With the file on disk the
edit is placed in it: the file before and after the edit are diffed, so the diff shows whole
lines and real line numbers. `applied` says which of the two the file on disk is (a call about
to run, or one replayed from a saved thread). When the file is not there or does not hold the
string (a remote session, a file changed since), the diff degrades to the call's own strings,
without line numbers. `write_file` diffs the file it replaces, or shows every line as added.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_READ = 1_000_000
CONTEXT = 3
FILE_TOOLS = frozenset({"write_file", "edit_file"})


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str
    number: int | None = None  # line number in the new (add/ctx) or old (del) file


def _read(file: Path) -> str | None:
    try:
        if not file.is_file() or file.stat().st_size > MAX_READ:
            return None
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def diff_lines(old: str, new: str, *, numbered: bool = True) -> list[DiffLine]:
    """The changed lines of `old` -> `new` with `CONTEXT` lines around them, hunks divided."""
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if out:
            out.append(DiffLine("hunk", "⋯"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(DiffLine("ctx", b[j], j + 1 if numbered else None) for j in range(j1, j2))
                continue
            out.extend(DiffLine("del", a[i], i + 1 if numbered else None) for i in range(i1, i2))
            out.extend(DiffLine("add", b[j], j + 1 if numbered else None) for j in range(j1, j2))
    return out


def _edit(content: str | None, old: str, new: str, every: bool, applied: bool) -> tuple[str, str] | None:
    """(file before, file after) of an edit, from the file on disk; None when it cannot be placed."""
    if content is None or not old:
        return None
    find, put = (new, old) if applied else (old, new)
    if not find or find not in content:
        return None
    other = content.replace(find, put) if every else content.replace(find, put, 1)
    return (other, content) if applied else (content, other)


def tool_diff(
    name: str, args: dict[str, Any], project_root: Path, *, applied: bool = False
) -> list[DiffLine] | None:
    """The diff a `write_file`/`edit_file` call makes, or None for other tools."""
    if name not in FILE_TOOLS:
        return None
    virtual = str(args.get("file_path") or args.get("path") or "")  # rooted at the project
    content = _read(project_root / virtual.lstrip("/"))
    if name == "write_file":
        new = str(args.get("content") or "")
        before = content if content is not None and not applied else ""
        return diff_lines(before, new)
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    placed = _edit(content, old, new, bool(args.get("replace_all")), applied)
    if placed is None:
        return diff_lines(old, new, numbered=False)
    return diff_lines(*placed)


def diff_stats(lines: list[DiffLine]) -> str:
    added = sum(1 for line in lines if line.kind == "add")
    removed = sum(1 for line in lines if line.kind == "del")
    return f"+{added} -{removed}"
