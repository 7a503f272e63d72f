"""Commands about threads: /threads (picker), /new (/clear), /rename, /fork."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.tui.commands.registry import command

if TYPE_CHECKING:
    from auger.tui.app import AugerApp


@command("new", "Start a new thread (the current one stays saved)", aliases=("clear",), idle_only=True)
async def new_cmd(app: AugerApp, arg: str) -> None:
    await app.switch_thread(None)
    app.notice("New thread.")


@command("rename", "Rename this thread", args="<title>")
async def rename_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    if not arg.strip():
        app.notice("Usage: /rename <title>", "warning")
        return
    app.thread = await app.session.rename_thread(arg)
    app.refresh_status()
    app.notice(f"Thread renamed: {' '.join(arg.split())}")


@command("fork", "Copy this thread into a new one and continue there", idle_only=True)
async def fork_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    old = app.session.thread_id
    new_id = await app.session.fork_thread()
    await app.switch_thread(new_id, f"Forked thread {old[:8]} into {{id}}; you are now in the fork")


@command("threads", "Browse threads: search, resume, rename, delete, fork", idle_only=True)
async def threads_cmd(app: AugerApp, arg: str) -> None:
    from auger.tui.screens.thread_picker import ThreadPicker

    assert app.session is not None

    async def chosen(thread_id: str | None) -> None:
        app.prompt.focus()
        if thread_id and app.session is not None and thread_id != app.session.thread_id:
            await app.switch_thread(thread_id)

    await app.push_screen(ThreadPicker(app.session, query=arg), chosen)
