"""The words of /rewind, /undo and /diff: a turn's changed files in a few words, and one line
saying what a rewind did (pure functions, no Textual)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from auger.core.port import counted
from auger.tui.format import one_line

if TYPE_CHECKING:
    from auger.core.port import Rewound, TurnChanges

NAMED = 2  # file names a turn's summary shows before "+N"
LISTED = 6  # file names a result line shows before "… and N more"


def files_summary(paths: Sequence[str], named: int = NAMED) -> str:
    """`3 files: a.py, b.py +1`; `no file changes` for none."""
    if not paths:
        return "no file changes"
    names = [path.rsplit("/", 1)[-1] for path in paths[:named]]
    more = f" +{len(paths) - named}" if len(paths) > named else ""
    return f"{counted(len(paths), 'file')}: {', '.join(names)}{more}"


def listed(paths: Sequence[str], limit: int = LISTED) -> str:
    """Paths for one line: `a.py, b.py … and 3 more`."""
    more = f" … and {len(paths) - limit} more" if len(paths) > limit else ""
    return ", ".join(paths[:limit]) + more


def changes_line(turn: int, paths: Sequence[str]) -> str:
    """`2 files changed: src/a.py, notes.md · /diff 3 · /undo` under the turn that changed them."""
    return f"{counted(len(paths), 'file')} changed: {listed(paths)} · /diff {turn} · /undo"


def turn_label(turn: TurnChanges) -> str:
    """The prompt's first line, for a picker row and a title."""
    return one_line(turn.prompt, 70) or "(empty prompt)"


def changed_from(turns: Sequence[TurnChanges], start: int) -> list[str]:
    """Every file turns `start`.. changed (what a code rewind to `start` puts back)."""
    return sorted({path for turn in turns if turn.turn >= start for path in turn.paths})


def files_done(done: Rewound) -> str:
    """`restored a.py, removed b.py` — or `no file needed restoring`."""
    if not done.files:
        return "no file needed restoring"
    by_verb: dict[str, list[str]] = {}
    for item in done.files:
        by_verb.setdefault(item.verb, []).append(item.path)
    return "; ".join(f"{verb} {listed(paths)}" for verb, paths in by_verb.items())


def rewound_line(done: Rewound) -> str:
    """One line for a finished /rewind."""
    parts = []
    if done.files is not None:
        parts.append(f"files: {files_done(done)}")
    if done.removed_turns is not None:
        parts.append(f"conversation: {counted(done.left, 'turn')} left")
    return f"Rewound to before turn {done.turn} — " + "; ".join(parts) + "."


def undone_line(done: Rewound) -> str:
    """One line for a finished /undo."""
    return f"Undid turn {done.turn}'s file changes: {files_done(done)}."
