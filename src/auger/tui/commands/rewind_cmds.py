"""Commands that go back: /rewind (also Esc Esc on an empty prompt), /undo and /diff.

All three read the thread's user turns from the port (`turns()`: each prompt and the files it
changed) and act through its `rewind` / `diff` operations, so they work the same in process and
on `--connect`. /rewind asks in steps (which turn, then code / conversation / both, then — when
files were changed by hand since the agent wrote them — whether to overwrite them), so it runs
as a worker that awaits each screen. Nothing changes until the last answer; a refusal of the
agent (no such turn, the thread busy elsewhere, snapshots missing) is one line.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from auger.core.port import counted
from auger.errors import AugerError, UsageError
from auger.tui.commands.registry import command
from auger.tui.rewind_text import changed_from, files_summary, listed, rewound_line, turn_label, undone_line

if TYPE_CHECKING:
    from auger.core.port import TurnChanges
    from auger.tui.app import AugerApp

log = logging.getLogger("auger.tui")

BOTH, CONVERSATION, CODE = "both", "conversation", "code"


async def _turns(app: AugerApp, doing: str) -> list[TurnChanges] | None:
    """The thread's user turns, or None (and a line saying so) when it has none yet."""
    assert app.session is not None
    turns = await app.session.turns()
    if not turns:
        app.notice(f"No turns yet: nothing to {doing}.", "warning")
        return None
    return turns


def _turn_number(arg: str, turns: list[TurnChanges], name: str) -> int | None:
    """`/name N`: turn N (None when no N was given); UsageError for anything else."""
    text = arg.strip()
    if not text:
        return None
    last = len(turns)
    if not text.isdigit() or not 1 <= int(text) <= last:
        span = "1" if last == 1 else f"1 to {last}"
        raise UsageError(
            f"/{name} takes a turn number from {span} (this thread has {counted(last, 'turn')}),"
            f" not {text!r}."
        )
    return int(text)


def _in_worker(app: AugerApp, steps: Coroutine[Any, Any, None], name: str) -> None:
    """Run `steps` (which await screens) in a worker; its errors become one line."""

    async def guarded() -> None:
        try:
            await steps
        except AugerError as exc:
            app.notice(str(exc), "error")
        except Exception as exc:
            log.exception("/%s failed", name)
            app.notice(f"/{name} failed: {type(exc).__name__}: {exc} (details in the log).", "error")
        finally:
            if app.screen_stack:
                app.prompt.focus()

    app.run_worker(guarded(), group="rewind", exclusive=True)


async def _overwrite(app: AugerApp, turn: int) -> bool | None:
    """Whether the rewind of files from `turn` on must force: False when nothing was changed by
    hand since the agent wrote it, True when the user says overwrite, None when they say no."""
    from auger.tui.screens.choice import ChoiceScreen

    assert app.session is not None
    preview = await app.session.rewind(turn, conversation=False, force=True, dry_run=True)
    forced = [f.path for f in preview.files or [] if f.forced]
    if not forced:
        return False
    screen = ChoiceScreen(
        f"{counted(len(forced), 'file')} changed since the agent last wrote them",
        [("overwrite", "Overwrite them too"), ("keep", "Never mind: change nothing")],
        body=[listed(forced, 10), "Your own changes to them would be lost."],
    )
    return True if await app.push_screen_wait(screen) == "overwrite" else None


# -- /rewind ------------------------------------------------------------------------------------
async def open_rewind(
    app: AugerApp, start: int | None = None, turns: list[TurnChanges] | None = None
) -> None:
    """Start a rewind: the turn picker (or, with `start`, that turn's choices)."""
    if app.session is None or app.busy:
        return
    try:
        turns = turns or await _turns(app, "rewind")
    except AugerError as exc:
        app.notice(str(exc), "error")
        return
    if turns:
        _in_worker(app, _rewind(app, turns, start), "rewind")


async def _rewind(app: AugerApp, turns: list[TurnChanges], start: int | None) -> None:
    from auger.tui.screens.turn_picker import TurnPicker

    assert app.session is not None
    number = start or await app.push_screen_wait(TurnPicker(turns))
    if number is None:
        return
    turn = turns[number - 1]
    what = await app.push_screen_wait(_choices(turn, len(turns), changed_from(turns, number)))
    if what is None:
        return
    files, conversation = what in (BOTH, CODE), what in (BOTH, CONVERSATION)
    force = await _overwrite(app, number) if files else False
    if force is None:
        app.notice("Rewind cancelled; nothing was changed.")
        return
    done = await app.session.rewind(number, files=files, conversation=conversation, force=force)
    if conversation:
        await app.redraw_thread("")  # the thread as it is now
        app.prompt.set_text(turn.prompt)  # to edit and send again
    app.notice(rewound_line(done))


def _choices(turn: TurnChanges, last: int, changed: list[str]) -> Any:
    from auger.tui.screens.choice import ChoiceScreen

    title = f"Rewind to before turn {turn.turn}: {turn_label(turn)}"
    undone = f"turn {last}" if turn.turn == last else f"turns {turn.turn}–{last}"
    conversation = (CONVERSATION, f"Conversation only: remove {undone}, keep the files")
    if not changed:
        body = [f"{undone.capitalize()} changed no files: only the conversation can go back."]
        return ChoiceScreen(title, [conversation], body=body)
    answers = [
        (BOTH, "Code and conversation"),
        conversation,
        (CODE, "Code only: put the files back, keep the conversation"),
    ]
    body = [f"The code goes back for {files_summary(changed, named=4)}."]
    return ChoiceScreen(title, answers, body=body)


@command(
    "rewind",
    "Go back to before a turn: its code, the conversation or both (also Esc Esc)",
    args="[N]",
    idle_only=True,
)
async def rewind_cmd(app: AugerApp, arg: str) -> None:
    turns = await _turns(app, "rewind")
    if turns is not None:
        await open_rewind(app, _turn_number(arg, turns, "rewind"), turns)


# -- /undo --------------------------------------------------------------------------------------
@command("undo", "Undo the last turn's file changes (the conversation stays)", idle_only=True)
async def undo_cmd(app: AugerApp, arg: str) -> None:
    turns = await _turns(app, "undo")
    if turns is None:
        return
    last = turns[-1]
    if not last.paths:
        app.notice(
            f"Turn {last.turn} changed no files: nothing to undo (/rewind goes further back).", "warning"
        )
        return
    _in_worker(app, _undo(app, last.turn), "undo")


async def _undo(app: AugerApp, turn: int) -> None:
    assert app.session is not None
    force = await _overwrite(app, turn)
    if force is None:
        app.notice("Undo cancelled; nothing was changed.")
        return
    done = await app.session.rewind(turn, conversation=False, force=force)
    if not done.files:
        app.notice(f"Turn {turn}'s file changes are already undone.")
        return
    app.notice(undone_line(done))


# -- /diff --------------------------------------------------------------------------------------
@command("diff", "The agent's file changes as a diff: the whole thread, or turn N", args="[N]")
async def diff_cmd(app: AugerApp, arg: str) -> None:
    from auger.tui.screens.diff_screen import DiffScreen

    assert app.session is not None
    turns = await _turns(app, "diff")
    if turns is None:
        return
    number = _turn_number(arg, turns, "diff")
    text = await app.session.diff(number)
    if number is not None:
        turn = turns[number - 1]
        title = f"Turn {number}: {turn_label(turn)} — {files_summary(turn.paths, named=4)}"
    else:
        title = f"This thread's file changes — {files_summary(changed_from(turns, 1), named=4)}"
    if not text.strip():
        where = f"Turn {number}" if number is not None else "This thread"
        app.notice(f"{where} changed no files: no diff to show.", "warning")
        return
    await app.push_screen(DiffScreen(title, text))
