"""One page of a text file, reading no more of it than the page needs (standard library only).

Each line is kept up to `LINE_BYTES` (the rest skipped, a note says so), the page up to
`PAGE_BYTES`; a line longer than `SKIP_BYTES` ends the reading there (a 2 GB file of one line).
The host backends call `page()`; the bubblewrap sandbox runs this file's source with
`python3 -c SOURCE PATH OFFSET LIMIT` inside the sandbox, which prints the page as JSON.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import IO

LINE_BYTES = 20_000  # a longer line is cut (the read_file tool shows at most ~80 KB per page anyway)
PAGE_BYTES = 400_000
SKIP_BYTES = 64 * 1024 * 1024
BLANK_CHECK = 64 * 1024  # a file this small that is only whitespace reads as empty


def _lines(f: IO[bytes]) -> Iterator[tuple[bytes, str]]:
    """Each line (at most LINE_BYTES of it) and a note when it was cut."""
    while line := f.readline(LINE_BYTES):
        if len(line) < LINE_BYTES or line.endswith(b"\n"):
            yield line, ""
            continue
        for _ in range(SKIP_BYTES >> 20):
            if not (more := f.read(1 << 20)) or (end := more.find(b"\n")) >= 0:
                break
        else:
            yield line, f"line cut at {LINE_BYTES} bytes; not read past {SKIP_BYTES >> 20} MB of it"
            return
        if more and end >= 0:
            f.seek(end + 1 - len(more), os.SEEK_CUR)
        yield line, f"line cut at {LINE_BYTES} bytes"


def _text(line: bytes, note: str) -> str:
    if not note:
        return line.decode("utf-8")
    return line.rstrip(b"\n").decode("utf-8", errors="ignore") + f" … [{note}]\n"


def _total(f: IO[bytes], count: int) -> int | None:
    """The file's number of lines, `count` of them read, if the rest is at most SKIP_BYTES."""
    more, last = 0, b"\n"
    for _ in range(SKIP_BYTES >> 20):
        if not (chunk := f.read(1 << 20)):
            return count + more + (last != b"\n")
        more, last = more + chunk.count(b"\n"), chunk[-1:]
    return None


def page(path: str, offset: int, limit: int) -> tuple[list[str], int | None, bool, bool]:
    """Lines `offset`.. (at most `limit`), the number of lines in the file (None: not counted, it
    is long), whether more follow, and whether the file is blank (empty or whitespace only, when
    small). Raises OSError, UnicodeDecodeError."""
    with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as f:
        if os.fstat(f.fileno()).st_size <= BLANK_CHECK and not f.read().strip():
            return [], 0, False, True
        f.seek(0)
        lines: list[str] = []
        size = count = 0
        for count, (line, note) in enumerate(_lines(f), start=1):
            if count <= offset:
                continue
            if len(lines) >= limit or (lines and size + len(line) > PAGE_BYTES):
                return lines, _total(f, count), True, False
            lines.append(_text(line, note))
            size += len(line)
        return lines, count, False, False


if __name__ == "__main__":
    try:
        print(json.dumps(page(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
    except (FileNotFoundError, IsADirectoryError):
        print(json.dumps({"error": "not_found"}))
    except (OSError, UnicodeDecodeError) as exc:
        print(json.dumps({"error": str(exc)}))
