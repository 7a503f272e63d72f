"""Commands that move text in or out: /export, /copy, /editor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.port import counted
from auger.tui.commands.registry import command

if TYPE_CHECKING:
    from auger.tui.commands.context import CommandContext


@command("export", "Write this thread to a Markdown file", args="[file]")
async def export_cmd(ctx: CommandContext, arg: str) -> None:
    thread_id = ctx.agent.thread_id
    text = await ctx.agent.transcript("markdown")
    # (an absolute path replaces the cwd it is joined to)
    target = ctx.settings.cwd / (Path(arg).expanduser() if arg else f"auger-{thread_id[:8]}.md")
    await asyncio.to_thread(target.write_text, text, encoding="utf-8")
    ctx.notify(f"Exported the conversation to {target}")


@command("copy", "Copy the last reply to the clipboard", needs_session=False)
async def copy_cmd(ctx: CommandContext, arg: str) -> None:
    if not ctx.facts.last_reply:
        ctx.notify("Nothing to copy yet.", "warning")
        return
    ctx.copy(ctx.facts.last_reply)
    ctx.notify(f"Copied the last reply ({counted(len(ctx.facts.last_reply), 'character')}).")


@command("editor", "Write the prompt in $EDITOR (also Ctrl+G)", needs_session=False)
async def editor_cmd(ctx: CommandContext, arg: str) -> None:
    await ctx.edit()
