"""Ctrl+G / `/editor`: edit the prompt in $VISUAL / $EDITOR (the TUI is suspended meanwhile)."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.tui.app import AugerApp


def _run(command: list[str], path: Path) -> int:
    return subprocess.run([*command, str(path)], check=False).returncode


async def edit_in_editor(app: AugerApp, text: str) -> str | None:
    """The edited text, or None if the editor failed or could not start."""
    from textual.app import SuspendNotSupported

    fd, name = tempfile.mkstemp(prefix="auger-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        command = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        try:
            try:
                with app.suspend():
                    code = _run(command, path)
            except SuspendNotSupported:  # headless (tests) or a driver that cannot suspend
                code = await asyncio.to_thread(_run, command, path)
        except OSError as exc:
            why = exc.strerror or exc
            app.notice(f"Cannot start the editor {command[0]!r}: {why}. Set $EDITOR.", "error")
            return None
        if code != 0:
            app.notice(f"The editor exited with status {code}; the prompt is unchanged.", "warning")
            return None
        return path.read_text(encoding="utf-8").rstrip("\n")
    finally:
        path.unlink(missing_ok=True)
