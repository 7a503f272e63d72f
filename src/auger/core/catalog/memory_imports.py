"""`@path` imports in memory files (AGENTS.md, CLAUDE.md), as Claude Code reads them.

A memory file may name other files with `@path` (`@README.md`, `@docs/testing.md`,
`@~/.claude/my-style.md`): relative to the importing file's folder, `~/` is the home folder.
Each imported file's text follows the file that imported it, headed by its path; imports are
followed up to `MAX_DEPTH` (5) hops. `@` inside a code span or a fenced block is not an import,
nor is one preceded by a word character (`user@example.com`).

Refused, each with a warning naming the importing file and what to do (the rest still loads): a
file outside the project and the home folder (also through a symlink; outside the project alone
while an untrusted project's memory file imports it, `auger.trust`), an import loop, one
past the depth limit or past `MAX_IMPORTED_BYTES` of imported text in all, a missing file when
the name looks like a path (`@docs/x.md`; a bare `@word` that names no file is a mention, not an
import), and binary or unreadable files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 5
MAX_IMPORTED_BYTES = 256 * 1024  # all the imports of one memory file (each file is capped too)
_IMPORT = re.compile(r"(?<![\w@`])@((?:~/|\.{1,2}/|/)?[\w.~-][\w./~-]*)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SPAN = re.compile(r"`[^`]*`")


def import_names(text: str) -> list[str]:
    """The `@path` names in `text`, outside code, in order (trailing punctuation dropped)."""
    names: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _IMPORT.finditer(_SPAN.sub("", line)):
            name = match.group(1).rstrip(".,;:)")
            if name and name not in names:
                names.append(name)
    return names


@dataclass
class Imports:
    """What `expand` found: the blocks to append and the warnings."""

    blocks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)
    size: int = 0  # bytes of text imported so far


def _allowed(path: Path, roots: list[Path]) -> bool:
    real = path.resolve()
    return any(real.is_relative_to(r.resolve()) for r in roots)


def _where(roots: list[Path]) -> str:
    if len(roots) > 1:
        return "the project and your home folder"
    from auger.trust import HOW

    return f"the project, which is not trusted ({HOW})"


def expand(text: str, path: Path, roots: list[Path], found: Imports | None = None, depth: int = 0) -> Imports:
    """The imports of the memory file `path` (whose text is `text`), recursively."""
    from auger.core.catalog.memory import read_memory_file  # memory imports this module

    found = found if found is not None else Imports(seen={path.resolve()})
    chain = found.seen
    for name in import_names(text):
        # relative to the importing file's folder; an absolute name stays absolute (pathlib's `/`)
        target = Path.home() / name[2:] if name.startswith("~/") else path.parent / name
        looks_like_path = "/" in name or "." in name
        if not target.is_file():
            if looks_like_path:
                found.warnings.append(
                    f"memory file {path}: @{name} not found ({target}); fix or remove the import"
                )
            continue
        if not _allowed(target, roots):
            found.warnings.append(f"memory file {path}: @{name} is outside {_where(roots)}; not imported")
            continue
        real = target.resolve()
        if real in chain:
            found.warnings.append(
                f"memory file {path}: @{name} imports a file already imported (a loop?); skipped"
            )
            continue
        if depth + 1 > MAX_DEPTH:
            found.warnings.append(
                f"memory file {path}: @{name} is more than {MAX_DEPTH} imports deep; not imported"
            )
            continue
        read = read_memory_file(target)
        if read.warning:
            found.warnings.append(read.warning)
        if read.text is None:
            continue
        if found.size + len(read.text) > MAX_IMPORTED_BYTES:
            cap = MAX_IMPORTED_BYTES // 1024
            found.warnings.append(
                f"memory file {path}: @{name} is past the {cap} KB of imports; not imported"
            )
            continue
        found.size += len(read.text)
        chain.add(real)
        found.blocks.append(f'<import path="{target}" from="{path}">\n{read.text.rstrip()}\n</import>')
        expand(read.text, target, roots, found, depth + 1)
    return found


def with_imports(text: str, path: Path, roots: list[Path]) -> tuple[str, list[str]]:
    """`text` followed by what it imports, and the warnings."""
    found = expand(text, path, roots)
    if not found.blocks:
        return text, found.warnings
    return "\n\n".join([text.rstrip(), *found.blocks]) + "\n", found.warnings
