"""Commands that go back: /rewind (also Esc Esc on an empty prompt), /undo and /diff.

All three read the thread's user turns from the port (`turns()`: each prompt and the files it
changed) and act through its `rewind` / `diff` operations, so they work the same in process and
on `--connect`. /rewind asks in steps (which turn, then code / conversation / both, then — when
files were changed by hand since the agent wrote them — whether to overwrite them), so it runs
as a worker that awaits each screen. Nothing changes until the last answer; a refusal of the
agent (no such turn, the thread busy elsewhere, snapshots missing) is one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.core.port import counted
from auger.errors import UsageError
from auger.tui.commands.context import reported
from auger.tui.commands.registry import command
from auger.tui.rewind_text import changed_from, files_summary, listed, rewound_line, turn_label, undone_line

if TYPE_CHECKING:
    from auger.core.port import TurnChanges
    from auger.tui.commands.context import CommandContext

BOTH, CONVERSATION, CODE = "both", "conversation", "code"


async def _turns(ctx: CommandContext, doing: str) -> list[TurnChanges] | None:
    """The thread's user turns, or None (and a line saying so) when it has none yet."""
    turns = await ctx.agent.turns()
    if not turns:
        ctx.notify(f"No turns yet: nothing to {doing}.", "warning")
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


async def _overwrite(ctx: CommandContext, turn: int) -> bool | None:
    """Whether the rewind of files from `turn` on must force: False when nothing was changed by
    hand since the agent wrote it, True when the user says overwrite, None when they say no."""
    from auger.tui.screens.choice import ChoiceScreen

    preview = await ctx.agent.rewind(turn, conversation=False, force=True, dry_run=True)
    forced = [f.path for f in preview.files or [] if f.forced]
    if not forced:
        return False
    screen = ChoiceScreen(
        f"{counted(len(forced), 'file')} changed since the agent last wrote them",
        [("overwrite", "Overwrite them too"), ("keep", "Never mind: change nothing")],
        body=[listed(forced, 10), "Your own changes to them would be lost."],
    )
    return True if await ctx.ask(screen) == "overwrite" else None


# -- /rewind ------------------------------------------------------------------------------------
async def open_rewind(
    ctx: CommandContext, start: int | None = None, turns: list[TurnChanges] | None = None
) -> None:
    """Start a rewind: the turn picker (or, with `start`, that turn's choices)."""
    if ctx.port is not None and ctx.state.ready:
        ctx.background(reported(_rewind(ctx, turns, start), "rewind", ctx.notify))  # it awaits screens


async def _rewind(ctx: CommandContext, turns: list[TurnChanges] | None, start: int | None) -> None:
    from auger.tui.screens.turn_picker import TurnPicker

    turns = turns or await _turns(ctx, "rewind")
    if not turns:
        return
    number = start or await ctx.ask(TurnPicker(turns))
    if number is None:
        return
    turn = turns[number - 1]
    what = await ctx.ask(_choices(turn, len(turns), changed_from(turns, number)))
    if what is None:
        return
    files, conversation = what in (BOTH, CODE), what in (BOTH, CONVERSATION)
    force = await _overwrite(ctx, number) if files else False
    if force is None:
        ctx.notify("Rewind cancelled; nothing was changed.")
        return
    done = await ctx.agent.rewind(number, files=files, conversation=conversation, force=force)
    if conversation:
        await ctx.redraw("")  # the thread as it is now
        ctx.set_prompt(turn.prompt)  # to edit and send again
    ctx.notify(rewound_line(done))


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
async def rewind_cmd(ctx: CommandContext, arg: str) -> None:
    turns = await _turns(ctx, "rewind")
    if turns is not None:
        await open_rewind(ctx, _turn_number(arg, turns, "rewind"), turns)


# -- /undo --------------------------------------------------------------------------------------
@command("undo", "Undo the last turn's file changes (the conversation stays)", idle_only=True)
async def undo_cmd(ctx: CommandContext, arg: str) -> None:
    turns = await _turns(ctx, "undo")
    if turns is None:
        return
    last = turns[-1]
    if not last.paths:
        ctx.notify(
            f"Turn {last.turn} changed no files: nothing to undo (/rewind goes further back).", "warning"
        )
        return
    ctx.background(reported(_undo(ctx, last.turn), "undo", ctx.notify))


async def _undo(ctx: CommandContext, turn: int) -> None:
    force = await _overwrite(ctx, turn)
    if force is None:
        ctx.notify("Undo cancelled; nothing was changed.")
        return
    done = await ctx.agent.rewind(turn, conversation=False, force=force)
    if not done.files:
        ctx.notify(f"Turn {turn}'s file changes are already undone.")
        return
    ctx.notify(undone_line(done))


# -- /diff --------------------------------------------------------------------------------------
@command("diff", "The agent's file changes as a diff: the whole thread, or turn N", args="[N]")
async def diff_cmd(ctx: CommandContext, arg: str) -> None:
    from auger.tui.screens.diff_screen import DiffScreen

    turns = await _turns(ctx, "diff")
    if turns is None:
        return
    number = _turn_number(arg, turns, "diff")
    text = await ctx.agent.diff(number)
    if number is not None:
        turn = turns[number - 1]
        title = f"Turn {number}: {turn_label(turn)} — {files_summary(turn.paths, named=4)}"
    else:
        title = f"This thread's file changes — {files_summary(changed_from(turns, 1), named=4)}"
    if not text.strip():
        where = f"Turn {number}" if number is not None else "This thread"
        ctx.notify(f"{where} changed no files: no diff to show.", "warning")
        return
    await ctx.show(DiffScreen(title, text))
