"""Small pure helpers that turn event data into short display strings (no Textual here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

KEY_ARGS: dict[str, tuple[str, ...]] = {
    "read_file": ("file_path", "path"),
    "write_file": ("file_path", "path"),
    "edit_file": ("file_path", "path"),
    "ls": ("path",),
    "glob": ("pattern",),
    "grep": ("pattern",),
    "execute": ("command",),
    "task": ("description",),
}
_EXIT = re.compile(r"\[Command (?:succeeded|failed) with exit code (-?\d+)\]|Exit code: (-?\d+)\s*$")


def one_line(text: str, limit: int = 80) -> str:
    """The first line of `text`, cut to `limit` characters with an ellipsis."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if len(first) > limit or "\n" in text.strip():
        return first[: limit - 1].rstrip() + "…" if len(first) > limit - 1 else first + " …"
    return first


def key_arg(name: str, args: dict[str, Any], limit: int = 70) -> str:
    """The one argument that tells a tool call apart (a path, a command, a pattern)."""
    if name == "write_todos":
        from auger.core.port import counted  # (not imported before the first paint)

        return counted(len(args.get("todos") or []), "item")
    for key in KEY_ARGS.get(name, ()):
        if args.get(key):
            return one_line(str(args[key]), limit)
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return one_line(value, limit)
    return ""


def pretty_args(args: dict[str, Any]) -> str:
    return json.dumps(args, indent=2, ensure_ascii=False, default=str)


def duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms // 60_000} m {ms % 60_000 // 1000} s"


def elapsed(seconds: float) -> str:
    s = int(seconds)
    return f"{s}s" if s < 60 else f"{s // 60}m{s % 60:02d}s"


def progress(done: float, total: float | None, message: str | None = None, width: int = 10) -> str:
    """`▰▰▰▱▱▱▱▱▱▱ 3/10 step 3` when the total is known, else `3 · step 3`."""
    label = one_line(message, 40) if message else ""
    if total and total > 0:
        filled = max(0, min(width, round(width * done / total)))
        bar = "▰" * filled + "▱" * (width - filled)
        return f"{bar} {done:g}/{total:g}" + (f" {label}" if label else "")
    return f"{done:g}" + (f" · {label}" if label else "")


def tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def context_use(used: int, window: int) -> str:
    pct = 100 * used / window if window else 0
    return f"{tokens(used)}/{tokens(window)} ({pct:.0f}%)"


def exit_code(output: str) -> int | None:
    """The shell exit code deepagents appends to `execute` output, if any."""
    match = _EXIT.search(output.rstrip()[-200:])
    if match is None:
        return None
    return int(match.group(1) or match.group(2))


def strip_exit_line(output: str) -> str:
    return _EXIT.sub("", output).rstrip()


def short_path(path: Path) -> str:
    """`path` with the home folder shown as ~."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home)) if path != home else "~"
    except ValueError:
        return str(path)


def clip_lines(text: str, max_lines: int) -> tuple[str, int]:
    """At most `max_lines` lines of `text`, and how many were left out."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text, 0
    return "\n".join(lines[:max_lines]), len(lines) - max_lines


def md_code(text: str) -> str:
    """`text` as inline code (more backticks around it than it holds in a row)."""
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(headers: list[str], rows: list[list[str]]) -> str:
    """A markdown table with a header row; `|` in a cell (inline code included) is escaped and a
    line break becomes a space, so every row stays one row."""

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|") or " "

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
