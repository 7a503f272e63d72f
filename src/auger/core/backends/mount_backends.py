"""The backends behind the user-folder mounts of `auger.core.backends.mounts` (imports deepagents).

* `MountBackend` — a `ProjectFiles` backend (paged reads) in virtual mode whose path errors (`..`,
  a symlink out of the folder) come back as error results the model can read; deepagents' own backend raises
  ValueError there, which would end the whole turn.
* `read_only=True` — shipped skills: writes, edits and deletes are refused.
* `shared=...` — AUGER_HOME: only the named top-level entries (AGENTS.md, CLAUDE.md, skills/,
  agents/) can be read or listed; config.toml, mcp.json, threads.db and logs/ stay out of reach.
* `MountedBackend` — the CompositeBackend the agent uses: a search or listing of the project
  root (`grep`/`glob`/`ls` on "/" or no path) stays in the project, instead of deepagents'
  default of also searching every mount; a mount is searched when its path is named. grep is
  routed here, keeping auger's keywords (context lines, file type).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from deepagents.backends import CompositeBackend
from deepagents.backends.composite import _route_for_path
from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    WriteResult,
)

from auger.core.backends.project_files import ProjectFiles
from auger.core.backends.search import takes_query

R = TypeVar("R")


def _is_root(path: str | None) -> bool:
    return path is None or path.strip("/") == ""


def _first(path: str) -> str:
    return path.strip("/").split("/", 1)[0]


class MountBackend(ProjectFiles):
    def __init__(self, root: Path, *, read_only: bool = False, shared: Iterable[str] | None = None) -> None:
        super().__init__(root_dir=root, virtual_mode=True)
        self.read_only = read_only
        self.shared = frozenset(shared) if shared is not None else None

    def _resolve_path(self, key: str) -> Path:
        name = _first(key if key.startswith("/") else "/" + key)
        if self.shared is not None and name and name not in self.shared:
            raise ValueError(f"not reachable: only {', '.join(sorted(self.shared))} are shared here")
        return super()._resolve_path(key)

    def _visible(self, path: str) -> bool:
        return self.shared is None or _first(path) in self.shared

    def _guard(
        self, result: Callable[..., R], call: Callable[..., R], *args: Any, writes: str | None = None
    ) -> R:
        """`call(*args)`, a path that leaves the folder (ValueError) as an error result; a write
        (`writes`: its path) to a read-only mount is refused."""
        if writes is not None and self.read_only:
            return result(error=f"{writes} is read-only (shipped with auger)")
        try:
            return call(*args)
        except ValueError as exc:
            return result(error=str(exc))

    # -- reads -------------------------------------------------------------------------------
    def ls(self, path: str) -> LsResult:
        try:
            result = super().ls(path)
        except ValueError as exc:
            return LsResult(error=str(exc))
        result.entries = [e for e in result.entries or [] if self._visible(str(e.get("path", "")))]
        return result

    def grep(self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any) -> GrepResult:
        if self.shared is not None and _is_root(path):
            return GrepResult(error=f"search a shared folder instead: {', '.join(sorted(self.shared))}")
        try:
            return super().grep(pattern, path, glob, **kw)
        except ValueError as exc:
            return GrepResult(error=str(exc))

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any
    ) -> GrepResult:
        import asyncio

        return await asyncio.to_thread(self.grep, pattern, path, glob, **kw)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        try:
            result = super().glob(pattern, path)
        except ValueError as exc:
            return GlobResult(error=str(exc))
        result.matches = [m for m in result.matches or [] if self._visible(str(m.get("path", "")))]
        return result

    # -- writes ------------------------------------------------------------------------------
    def write(self, file_path: str, content: str) -> WriteResult:
        return self._guard(WriteResult, super().write, file_path, content, writes=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        edit = super().edit
        return self._guard(EditResult, edit, file_path, old_string, new_string, replace_all, writes=file_path)

    def delete(self, file_path: str) -> DeleteResult:
        return self._guard(DeleteResult, super().delete, file_path, writes=file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        if self.read_only:
            return [FileUploadResponse(path=p, error="permission_denied") for p, _ in files]
        return super().upload_files(files)  # a path error: "invalid_path" (the SDK's own mapping)


class MountedBackend(CompositeBackend):
    """Project-root searches and listings stay in the project; named mount paths are routed."""

    def ls(self, path: str) -> LsResult:
        return self.default.ls(path) if _is_root(path) else super().ls(path)

    async def als(self, path: str) -> LsResult:
        return await self.default.als(path) if _is_root(path) else await super().als(path)

    def grep(self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any) -> GrepResult:
        """Routed here with every keyword (regex context, file type), which the SDK's routing drops."""
        backend, inner, prefix = _route_for_path(
            default=self.default, sorted_routes=self.sorted_routes, path=path or "/"
        )
        if set(kw) - {"max_count"} and not takes_query(backend.grep):
            kw = {"max_count": kw.get("max_count")}  # a provider's sandbox: its own grep
        result: GrepResult = backend.grep(pattern, path if prefix is None else inner, glob, **kw)
        if prefix is not None and result.matches:
            result.matches = [{**m, "path": prefix.rstrip("/") + m["path"]} for m in result.matches]
        return result

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any
    ) -> GrepResult:
        import asyncio

        return await asyncio.to_thread(self.grep, pattern, path, glob, **kw)

    def stamp(self, file_path: str) -> str | None:
        """The routed backend's `stamp` of the file (None: it has none, or no such file)."""
        backend, inner, _ = _route_for_path(
            default=self.default, sorted_routes=self.sorted_routes, path=file_path
        )
        stamp = getattr(backend, "stamp", None)
        return stamp(inner) if stamp is not None else None

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        if _is_root(path) and not pattern.lstrip("/").startswith("~"):
            return self.default.glob(pattern, path)  # type: ignore[no-any-return]
        return super().glob(pattern, path)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        if _is_root(path) and not pattern.lstrip("/").startswith("~"):
            return await self.default.aglob(pattern, path)  # type: ignore[no-any-return]
        return await super().aglob(pattern, path)
