"""Memory: the AGENTS.md files the agent reads on every turn and may edit when asked to remember.

Three slots, in the order they appear in the prompt:

    user           $AUGER_HOME/AGENTS.md        (agent path /~auger/AGENTS.md)
    project        <project root>/AGENTS.md     (agent path /AGENTS.md)
    project-local  <project root>/.auger/AGENTS.md  (agent path /.auger/AGENTS.md)

and, when they exist, Claude Code's `.claude/CLAUDE.md` and `CLAUDE.local.md`, and the memory
file of each folder from the project root down to the working directory ("folder" scope).
The project root is the nearest folder holding `.git`, else the working directory. In a folder
with no AGENTS.md, a CLAUDE.md there is read instead. `@path` lines import other files
(`auger.core.catalog.memory_imports`); a subfolder's memory is added when the agent works there
(`auger.core.middleware.tools.folder_memory`). The SDK's MemoryMiddleware does the
injection (see `auger.core.middleware.prompt.memory`); `memory_files` serves a `/memory` view.

A memory file goes into every model call, so it is read with care (`read_memory_file`): one
holding NUL bytes (binary) is skipped; one that is not valid UTF-8 is read with U+FFFD for the
bad bytes; one over `MAX_MEMORY_BYTES` (64 KB, ~16k tokens) is cut there, and the model is told
so. Each of these is a warning to the user (`memory_warnings`, shown on the first turn). A memory
file of an untrusted project that links outside it (`AGENTS.md -> ~/.ssh/id_rsa`) is not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.backends.mounts import HOME_MOUNT

if TYPE_CHECKING:
    from auger.settings import Settings

AGENTS_MD = "AGENTS.md"
CLAUDE_MD = "CLAUDE.md"
LOCAL_MD = "CLAUDE.local.md"  # Claude Code's personal project memory (not committed)
MAX_MEMORY_BYTES = 64 * 1024  # per file; see the module docstring
SNIFF_BYTES = 8192  # a NUL in the first 8 KB means a binary file (what git and grep look at)


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


def _optional_slots(settings: Settings) -> list[tuple[str, Path, str]]:
    """Claude Code's other places, used when they exist: `.claude/CLAUDE.md`, `CLAUDE.local.md`,
    and the memory of each folder from the project root down to the working directory (Codex and
    Claude Code read those when started in a subfolder)."""
    root, cwd = Path(settings.project_root), Path(settings.cwd)
    out = [("project", root / ".claude" / CLAUDE_MD, "/.claude/"), ("project-local", root / LOCAL_MD, "/")]
    if cwd != root and cwd.is_relative_to(root):
        folder = root
        for part in cwd.relative_to(root).parts:
            folder = folder / part
            out.append(("folder", folder, f"/{folder.relative_to(root).as_posix()}/"))
    return out


def folder_memory(folder: Path) -> Path | None:
    """A folder's memory file: AGENTS.md, or CLAUDE.md where only that exists (None: neither)."""
    for name in (AGENTS_MD, CLAUDE_MD):
        if (folder / name).is_file():
            return folder / name
    return None


def memory_files(settings: Settings) -> list[MemoryFile]:
    """One file per slot: AGENTS.md, or CLAUDE.md where only that exists (missing ones too), then
    the optional slots that exist."""
    out: list[MemoryFile] = []
    seen: set[Path] = set()
    for scope, folder, prefix in _slots(settings):
        if folder.resolve() in seen:  # e.g. the project is $HOME and AUGER_HOME is ~/.auger
            continue
        seen.add(folder.resolve())
        path = folder_memory(folder) or folder / AGENTS_MD
        out.append(MemoryFile(scope, path, prefix + path.name, path.is_file()))
    for scope, place, prefix in _optional_slots(settings):
        found = folder_memory(place) if scope == "folder" else place
        if found is not None and found.is_file() and found.resolve() not in {m.path.resolve() for m in out}:
            out.append(MemoryFile(scope, found, prefix + found.name, True))
    return out


def memory_sources(settings: Settings) -> list[str]:
    """The backend paths MemoryMiddleware reads (every slot; missing files are skipped)."""
    return [m.virtual_path for m in memory_files(settings)]


@dataclass(frozen=True)
class MemoryText:
    text: str | None  # None: skipped (missing, unreadable, binary)
    warning: str | None = None  # what the user should know about this file


def read_memory_file(path: Path) -> MemoryText:
    """A memory file's text for the prompt, with the cap, binary and encoding rules above."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_MEMORY_BYTES + 1)
            size = path.stat().st_size if len(raw) > MAX_MEMORY_BYTES else len(raw)
    except OSError as exc:
        return MemoryText(None, f"memory file {path} skipped: cannot read it ({exc.strerror or exc}).")
    if b"\0" in raw[:SNIFF_BYTES]:
        return MemoryText(None, f"memory file {path} skipped: it is binary, not text.")
    if len(raw) <= MAX_MEMORY_BYTES:
        return MemoryText(*_decode(raw, path))
    kept = raw[:MAX_MEMORY_BYTES]
    newline = kept.rfind(b"\n")
    text, _ = _decode(kept[: newline + 1] if newline > 0 else kept, path)
    cap = MAX_MEMORY_BYTES // 1024
    text += (
        f"\n[auger: {path.name} is {size // 1024} KB; only its first {cap} KB are shown here. "
        "Read the rest with read_file when it matters.]\n"
    )
    warning = (
        f"memory file {path} is {size // 1024} KB; only its first {cap} KB are used (the cap per memory "
        "file). Move the rest to other files and link to them."
    )
    return MemoryText(text, warning)


def _decode(raw: bytes, path: Path) -> tuple[str, str | None]:
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", errors="replace"), (
            f"memory file {path} is not valid UTF-8 (byte {exc.start}); bad bytes are shown as U+FFFD."
        )


def read_with_imports(path: Path, settings: Settings) -> tuple[str | None, list[str]]:
    """A memory file's text with its `@path` imports (`auger.core.catalog.memory_imports`), and
    the warnings."""
    from auger.core.catalog.memory_imports import with_imports

    root = Path(settings.project_root)
    own = Path(os.path.abspath(path)).is_relative_to(os.path.abspath(root))
    if not settings.trusted and own and not path.resolve().is_relative_to(root.resolve()):
        from auger.trust import HOW

        why = f"it links outside the project, which is not trusted ({HOW})"
        return None, [f"memory file {path} skipped: {why}."]
    read = read_memory_file(path)
    warnings = [read.warning] if read.warning else []
    if read.text is None:
        return None, warnings
    roots = [root, Path.home(), Path(settings.home)]  # where imports may lead
    if not settings.trusted and path.resolve().is_relative_to(root.resolve()):
        roots = [root]  # an untrusted project's memory may not pull in the user's files (~/.ssh/...)
    text, problems = with_imports(read.text, path, roots)
    return text, warnings + problems


def memory_warnings(settings: Settings) -> list[str]:
    """One line per memory file (or import) the agent gets only partly or not at all (for the first turn)."""
    return [w for m in memory_files(settings) if m.exists for w in read_with_imports(m.path, settings)[1]]
