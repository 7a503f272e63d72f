"""Commands that move text in or out: /export, /copy, /editor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from auger.tui import format as fmt
from auger.tui.commands.registry import command

if TYPE_CHECKING:
    from auger.tui.app import AugerApp


@command("export", "Write this thread to a Markdown file", args="[file]")
async def export_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    thread_id = app.session.thread_id
    text = await app.session.transcript("markdown")
    target = Path(arg).expanduser() if arg else Path(f"auger-{thread_id[:8]}.md")
    if not target.is_absolute():
        target = app.settings.cwd / target
    await asyncio.to_thread(target.write_text, text, encoding="utf-8")
    app.notice(f"Exported the conversation to {target}")


@command("copy", "Copy the last reply to the clipboard", needs_session=False)
async def copy_cmd(app: AugerApp, arg: str) -> None:
    if not app.last_reply:
        app.notice("Nothing to copy yet.", "warning")
        return
    app.copy_to_clipboard(app.last_reply)
    app.notice(f"Copied the last reply ({fmt.counted(len(app.last_reply), 'character')}).")


@command("editor", "Write the prompt in $EDITOR (also Ctrl+G)", needs_session=False)
async def editor_cmd(app: AugerApp, arg: str) -> None:
    await app.action_editor()
