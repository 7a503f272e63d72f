"""The file-tool half shared by auger's host backends (the project's and the mounts').

deepagents' `FilesystemBackend.read` reads the whole file to return one page: a 2 GB file costs
gigabytes. `read_page` keeps only the requested lines (`auger.core.backends.paging`), numbered
`cat -n` style (deepagents 0.7 shows the source bare under an `@@ lines A-B @@` header, but the
model cites `path:line`), other encodings decoded and named; binary files (images, PDFs) over
`BINARY_CAP` are refused; a missing file's error names the host path looked for.
`ProjectFiles` adds it to a backend, lists an entry it cannot follow (a symlink loop) as a link
instead of failing the listing, and refuses every operation once the folder the backend is rooted
at is gone: a write would otherwise recreate a deleted project folder.
grep, glob and ls respect the project (`auger.core.backends.search`): a regex search honouring
ignore files, capped listings, and a missing search path named in an error. `edit` keeps the
file's encoding, line endings and mode (`auger.core.backends.editing`); `stamp` is what edit_file
compares to see a file changed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepagents.backends import FilesystemBackend
from deepagents.backends.protocol import (
    EditResult,
    FileData,
    FileInfo,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
)
from deepagents.backends.utils import _get_backend_read_file_type, check_empty_content, normalize_read_bounds

from auger.core.backends import search
from auger.core.backends.editing import edit_bytes
from auger.core.backends.paging import page

BINARY_CAP = 32 * 1024 * 1024


def read_page(fs: FilesystemBackend, file_path: str, offset: int, limit: int) -> ReadResult:
    """`limit` lines from line `offset` of a text file, reading no more of it than that needs."""
    offset, limit = normalize_read_bounds(offset, limit)
    try:
        path = fs._resolve_path(file_path)
        if not path.is_file():
            return ReadResult(error=not_found(file_path, str(path), str(fs.cwd)))
        if _get_backend_read_file_type(file_path) != "text":
            if path.stat().st_size > BINARY_CAP:
                return ReadResult(error=f"Error reading file '{file_path}': over {BINARY_CAP} bytes")
            return FilesystemBackend.read(fs, file_path, offset, limit)
        found = page(str(path), offset, max(limit, 1))
    except (OSError, RuntimeError, ValueError) as exc:
        return ReadResult(error=f"Error reading file '{file_path}': {exc}")
    return page_result(found, offset, limit)


def not_found(agent_path: str, host: str, root: str) -> str:
    """The error naming where the file was looked for (a path the shell understands)."""
    return f"File '{agent_path}' not found: no file at {host} (file tool paths start at {root})"


def page_result(found: Sequence[Any], offset: int, limit: int) -> ReadResult:
    """The `ReadResult` of `auger.core.backends.paging.page`'s answer: each line numbered
    (`cat -n`), and a note after the page when the file is not UTF-8."""
    lines, total, more, blank, encoding = found
    if blank or limit == 0:
        text = (check_empty_content("") or "") if blank else ""
        return ReadResult(file_data=FileData(content=text, encoding="utf-8"), no_lines_requested=not blank)
    if not lines:
        return ReadResult(error=f"Line offset {offset} exceeds file length ({total} lines)")
    end = offset + len(lines)
    rows = [
        f"{n:>6}\t{line.rstrip(chr(10)).removesuffix(chr(13))}" for n, line in enumerate(lines, offset + 1)
    ]
    if encoding not in ("utf-8", "utf-8-sig"):
        rows += ["", f"[decoded as {encoding}: the file is not UTF-8]"]
    elif any("\ufffd" in line for line in lines):
        rows += ["", "[a \ufffd stands for bytes that are not valid UTF-8]"]
    return ReadResult(
        file_data=FileData(content="\n".join(rows) + "\n", encoding="utf-8"),
        total_lines=total,
        start_line=offset + 1,
        end_line=end,
        next_offset=end if more else None,
    )


class ProjectFiles(FilesystemBackend):
    """Paged reads, and every path refused once the backend's folder no longer exists."""

    def _resolve_path(self, key: str) -> Path:
        if not Path(self.cwd).is_dir():
            raise FileNotFoundError(f"the folder {self.cwd} no longer exists (deleted or moved?)")
        return super()._resolve_path(key)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return read_page(self, file_path, offset, limit)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """`old_string` replaced in the file's bytes, written back in place (same inode and mode)."""
        nofollow = getattr(os, "O_NOFOLLOW", 0)
        try:
            path = self._resolve_path(file_path)
            if not path.is_file():
                return EditResult(error="Error: " + not_found(file_path, str(path), str(self.cwd)))
            with open(os.open(path, os.O_RDONLY | nofollow), "rb") as f:
                data = f.read()
            out, result = edit_bytes(data, file_path, old_string, new_string, replace_all)
            if result.error is None:
                with open(os.open(path, os.O_WRONLY | os.O_TRUNC | nofollow), "wb") as f:
                    f.write(out)
        except (OSError, RuntimeError) as exc:
            return EditResult(error=f"Error editing file '{file_path}': {exc}")
        return result

    def stamp(self, file_path: str) -> str | None:
        """The file's modification time and size (None: it is not there)."""
        try:
            st = self._resolve_path(file_path).stat()
        except (OSError, ValueError, RuntimeError):
            return None
        return f"{st.st_mtime_ns}:{st.st_size}"

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
        file_type: str | None = None,
    ) -> GrepResult:
        """A regex search of `path` (the project by default) with `auger.core.backends.search`."""
        try:
            base = self._resolve_path(path or "/")
        except (OSError, ValueError) as exc:
            return GrepResult(error=f"Error searching '{path or '/'}': {exc}", matches=[])
        if not base.exists():
            return GrepResult(error=f"Error: {search.missing(path)}", matches=[])
        query = search.Query.of(
            pattern, glob, file_type=file_type, context_lines=context_lines, max_count=max_count
        )
        return search.host_grep(self.cwd, base, query)

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any
    ) -> GrepResult:
        return await asyncio.to_thread(self.grep, pattern, path, glob, **kw)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """deepagents' glob, its matches capped (`search.cap_entries`); a missing `path` is an error."""
        try:
            if path and not self._resolve_path(path).exists():
                return GlobResult(error=search.missing(path))
        except (OSError, ValueError) as exc:
            return GlobResult(error=f"Error searching '{path}': {exc}")
        result = super().glob(pattern, path)
        if result.matches:
            result.matches, more = search.cap_entries(result.matches, search.NARROWER)
            result.truncated = result.truncated or bool(more)
        return result

    def ls(self, path: str) -> LsResult:
        """deepagents' listing, capped (`search.cap_entries`), but an entry it cannot stat (a
        symlink loop) is listed as what it is instead of failing the whole listing."""
        result = self._ls(path)
        if result.entries:
            result.entries = search.cap_entries(result.entries, search.SUBFOLDER)[0]
        return result

    def _ls(self, path: str) -> LsResult:
        result = super().ls(path)
        if result.entries is None or not result.error or "aborted" in result.error:
            return result
        folder = self._resolve_path(path)
        listed = {str(e.get("path", "")).rstrip("/") for e in result.entries}
        extra: list[FileInfo] = []
        for child in folder.iterdir():
            vpath = "/" + child.relative_to(self.cwd).as_posix()
            if vpath not in listed:
                what = (
                    f"-> {os.readlink(child)} (a link that cannot be followed)"
                    if child.is_symlink()
                    else "(unreadable)"
                )
                extra.append(FileInfo(path=f"{vpath} {what}", is_dir=False, size=0))
        return LsResult(entries=sorted([*result.entries, *extra], key=lambda e: e["path"]))
