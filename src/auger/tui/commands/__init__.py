"""Slash commands: one registry (`registry.py`); handlers grouped by area in the sibling modules,
which register themselves when `load_commands()` imports them."""

from __future__ import annotations

import importlib

from auger.tui.commands.registry import REGISTRY, Command, command, parse

MODULES = ("session_cmds", "thread_cmds", "rewind_cmds", "info_cmds", "io_cmds", "permission_cmds")

__all__ = ["REGISTRY", "Command", "command", "load_commands", "parse"]


def load_commands() -> None:
    for name in MODULES:
        importlib.import_module(f"auger.tui.commands.{name}")
