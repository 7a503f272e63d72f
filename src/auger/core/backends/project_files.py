"""The file-tool half shared by auger's host backends (the project's and the mounts').

deepagents' `FilesystemBackend.read` reads the whole file to return one page: a 2 GB file costs
gigabytes. `read_page` streams the file and keeps only the requested lines (each line at most
`LINE_BYTES`, the page at most `PAGE_BYTES`); binary files (images, PDFs) over `BINARY_CAP` are
refused. `ProjectFiles` adds it to a backend, lists an entry it cannot follow (a symlink loop) as
a link instead of failing the listing, and refuses every operation once the folder the backend is
rooted at is gone: a write would otherwise recreate a deleted project folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from deepagents.backends import FilesystemBackend
from deepagents.backends.protocol import FileData, FileInfo, LsResult, ReadResult
from deepagents.backends.utils import _get_backend_read_file_type, check_empty_content, normalize_read_bounds

LINE_BYTES = 20_000  # a longer line is cut (the read_file tool shows at most ~80 KB per page anyway)
PAGE_BYTES = 400_000
SKIP_BYTES = 64 * 1024 * 1024
BLANK_CHECK = 64 * 1024  # a file this small that is only whitespace reads as empty
BINARY_CAP = 32 * 1024 * 1024


def _lines(f: IO[bytes]) -> Iterator[tuple[bytes, str]]:
    """Each line (at most LINE_BYTES of it) and a note when it was cut. The rest of a long line is
    skipped; a line longer than SKIP_BYTES ends the reading there (a 2 GB file of one line)."""
    while line := f.readline(LINE_BYTES):
        if len(line) < LINE_BYTES or line.endswith(b"\n"):
            yield line, ""
            continue
        for _ in range(SKIP_BYTES >> 20):
            if not (more := f.read(1 << 20)) or (end := more.find(b"\n")) >= 0:
                break
        else:
            yield (
                line,
                f"line cut at {LINE_BYTES} bytes; not read past {SKIP_BYTES >> 20} MB of it",
            )
            return
        if more and end >= 0:
            f.seek(end + 1 - len(more), os.SEEK_CUR)
        yield line, f"line cut at {LINE_BYTES} bytes"


def _text(line: bytes, note: str) -> str:
    if not note:
        return line.decode("utf-8")
    return line.rstrip(b"\n").decode("utf-8", errors="ignore") + f" … [{note}]\n"


def read_page(fs: FilesystemBackend, file_path: str, offset: int, limit: int) -> ReadResult:
    """`limit` lines from line `offset` of a text file, reading no more of it than that needs."""
    offset, limit = normalize_read_bounds(offset, limit)
    try:
        path = fs._resolve_path(file_path)
        if not path.is_file():
            return ReadResult(error=f"File '{file_path}' not found")
        if _get_backend_read_file_type(file_path) != "text":
            if path.stat().st_size > BINARY_CAP:
                return ReadResult(error=f"Error reading file '{file_path}': over {BINARY_CAP} bytes")
            return FilesystemBackend.read(fs, file_path, offset, limit)
        blank = path.stat().st_size <= BLANK_CHECK and not path.read_bytes().strip()  # as the SDK: any window
        if blank or limit == 0:
            text = (check_empty_content("") or "") if blank else ""
            return ReadResult(
                file_data=FileData(content=text, encoding="utf-8"), no_lines_requested=not blank
            )
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as f:
            page, count, more = _page(_lines(f), offset, limit)
    except (OSError, RuntimeError, UnicodeDecodeError, ValueError) as exc:
        return ReadResult(error=f"Error reading file '{file_path}': {exc}")
    return _result(page, count, more, offset)


def _result(page: list[str], count: int, more: bool, offset: int) -> ReadResult:
    text = "".join(page).replace("\r\n", "\n").replace("\r", "\n")
    if not page:
        return ReadResult(error=f"Line offset {offset} exceeds file length ({count} lines)")
    end = offset + len(page)
    return ReadResult(
        file_data=FileData(content=text, encoding="utf-8"),
        total_lines=None if more else end,
        start_line=offset + 1,
        end_line=end,
        next_offset=end if more else None,
    )


def _page(lines: Iterator[tuple[bytes, str]], offset: int, limit: int) -> tuple[list[str], int, bool]:
    """The page's lines, the number of lines seen, and whether more follow."""
    page: list[str] = []
    size = count = 0
    for count, (line, note) in enumerate(lines, start=1):
        if count <= offset:
            continue
        if len(page) >= limit or (page and size + len(line) > PAGE_BYTES):
            return page, count, True
        page.append(_text(line, note))
        size += len(line)
    return page, count, False


class ProjectFiles(FilesystemBackend):
    """Paged reads, and every path refused once the backend's folder no longer exists."""

    def _resolve_path(self, key: str) -> Path:
        if not Path(self.cwd).is_dir():
            raise FileNotFoundError(f"the folder {self.cwd} no longer exists (deleted or moved?)")
        return super()._resolve_path(key)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return read_page(self, file_path, offset, limit)

    def ls(self, path: str) -> LsResult:
        """deepagents' listing, but an entry it cannot stat (a symlink loop) is listed as what it
        is instead of failing the whole listing."""
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
