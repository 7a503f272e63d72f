"""Changes as a unified diff in git's format (`git apply` and `patch -p1` read it)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable

from auger.core.rewind.trees import Change

NO_NEWLINE = "\\ No newline at end of file\n"


def unified(changes: Iterable[Change], read: Callable[[str], bytes]) -> str:
    return "".join(_one(c, read) for c in sorted(changes, key=lambda c: c.path))


def _one(change: Change, read: Callable[[str], bytes]) -> str:
    path, old, new = change
    out = [f"diff --git a/{path} b/{path}\n"]
    if old is None and new is not None:
        out.append(f"new file mode {new.mode}\n")
    elif new is None and old is not None:
        out.append(f"deleted file mode {old.mode}\n")
    elif old is not None and new is not None and old.mode != new.mode:
        out.append(f"old mode {old.mode}\nnew mode {new.mode}\n")
    before = read(old.id) if old else b""
    after = read(new.id) if new else b""
    if before == after:
        return "".join(out)
    a_name = f"a/{path}" if old else "/dev/null"
    b_name = f"b/{path}" if new else "/dev/null"
    a_text, b_text = _text(before), _text(after)
    if a_text is None or b_text is None:
        out.append(f"Binary files {a_name} and {b_name} differ\n")
        return "".join(out)
    lines = difflib.unified_diff(_lines(a_text), _lines(b_text), a_name, b_name, n=3)
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n" + NO_NEWLINE)
    return "".join(out)


def _text(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines(text: str) -> list[str]:
    """Lines as git counts them: split at "\n" only (not at form feeds or other separators)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
