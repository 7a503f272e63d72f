"""Memory: the AGENTS.md files the agent reads on every turn and may edit when asked to remember.

Three slots, in the order they appear in the prompt:

    user           $AUGER_HOME/AGENTS.md        (agent path /~auger/AGENTS.md)
    project        <project root>/AGENTS.md     (agent path /AGENTS.md)
    project-local  <project root>/.auger/AGENTS.md  (agent path /.auger/AGENTS.md)

The project root is the nearest folder holding `.git`, else the working directory. In a folder
with no AGENTS.md, a CLAUDE.md there is read instead. The SDK's MemoryMiddleware does the
injection (see `auger.core.middleware.memory`); `list_memory_files` serves a `/memory` view.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.backends.mounts import HOME_MOUNT

if TYPE_CHECKING:
    from auger.settings import Settings

AGENTS_MD = "AGENTS.md"
CLAUDE_MD = "CLAUDE.md"


@dataclass(frozen=True)
class MemoryFile:
    scope: str  # "user" | "project" | "project-local"
    path: Path  # host path
    virtual_path: str  # path for the agent's file tools
    exists: bool


def _slots(settings: Settings) -> list[tuple[str, Path, str]]:
    root = Path(settings.project_root)
    return [
        ("user", Path(settings.home), HOME_MOUNT),
        ("project", root, "/"),
        ("project-local", root / ".auger", "/.auger/"),
    ]


def memory_files(settings: Settings) -> list[MemoryFile]:
    """One file per slot: AGENTS.md, or CLAUDE.md where only that exists (missing ones too)."""
    out: list[MemoryFile] = []
    seen: set[Path] = set()
    for scope, folder, prefix in _slots(settings):
        if folder.resolve() in seen:  # e.g. the project is $HOME and AUGER_HOME is ~/.auger
            continue
        seen.add(folder.resolve())
        name = AGENTS_MD
        if not (folder / AGENTS_MD).is_file() and (folder / CLAUDE_MD).is_file():
            name = CLAUDE_MD
        path = folder / name
        out.append(MemoryFile(scope, path, prefix + name, path.is_file()))
    return out


def list_memory_files(settings: Settings, *, include_missing: bool = False) -> list[MemoryFile]:
    """The memory files in force (existing), or every slot with `include_missing=True`."""
    return [m for m in memory_files(settings) if include_missing or m.exists]


def memory_sources(settings: Settings) -> list[str]:
    """The backend paths MemoryMiddleware reads (every slot; missing files are skipped)."""
    return [m.virtual_path for m in memory_files(settings)]
