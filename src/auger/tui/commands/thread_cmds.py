"""Commands about threads: /threads (picker), /new (/clear), /rename, /fork."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.tui.commands.registry import command

if TYPE_CHECKING:
    from auger.tui.commands.context import CommandContext


@command("new", "Start a new thread (the current one stays saved)", aliases=("clear",), idle_only=True)
async def new_cmd(ctx: CommandContext, arg: str) -> None:
    await ctx.switch_thread(None)
    ctx.notify("New thread.")


@command("rename", "Rename this thread", args="<title>")
async def rename_cmd(ctx: CommandContext, arg: str) -> None:
    if not arg.strip():
        ctx.notify("Usage: /rename <title>", "warning")
        return
    ctx.facts.thread = await ctx.agent.rename_thread(arg)
    ctx.status()
    ctx.notify(f"Thread renamed: {' '.join(arg.split())}")


@command("fork", "Copy this thread into a new one and continue there", idle_only=True)
async def fork_cmd(ctx: CommandContext, arg: str) -> None:
    old = ctx.agent.thread_id
    new_id = await ctx.agent.fork_thread()
    await ctx.switch_thread(new_id, f"Forked thread {old[:8]} into {{id}}; you are now in the fork")


@command(
    "threads", "Browse threads: search, resume, rename, delete, fork", aliases=("resume",), idle_only=True
)
async def threads_cmd(ctx: CommandContext, arg: str) -> None:
    from auger.tui.screens.thread_picker import ThreadPicker

    async def chosen(thread_id: str | None) -> None:
        if thread_id and thread_id != ctx.agent.thread_id:
            await ctx.switch_thread(thread_id)

    await ctx.show(ThreadPicker(ctx.agent, query=arg), chosen)
