"""One page of a text file, reading no more of it than the page needs (standard library only).

The encoding is sniffed from the file's head (`encoding`): a BOM, else UTF-8 if it decodes,
else cp1252/Latin-1 (which decode any byte). Each line is kept up to `LINE_CHARS` (the rest
skipped, a note says how to print more of it with the shell), the page up to `PAGE_CHARS`; a
line longer than `SKIP_CHARS` ends the reading there (a 2 GB file of one line).
The host backends call `page()`; the bubblewrap sandbox runs this file's source with
`python3 -c SOURCE PATH OFFSET LIMIT` inside the sandbox, which prints the page as JSON.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import shlex
import sys
from collections.abc import Iterator

LINE_CHARS = 5_000  # a longer line is cut, with a note
PAGE_CHARS = 60_000  # a page ends before this (next offset in the header); under the tool's ~80 KB
NUMBER_CHARS = 7  # each line's number, `cat -n` style (`project_files.page_result`), counts too
SKIP_CHARS = 64 * 1024 * 1024
BLANK_CHECK = 64 * 1024  # a file this small that is only whitespace reads as empty
SNIFF = 64 * 1024
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def encoding(head: bytes) -> str:
    """The encoding of a file that starts with `head`: by BOM, UTF-8, cp1252 or latin-1."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    try:
        head.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and len(head) == SNIFF:
            return "utf-8"  # the sniffed head ends inside a character
    if any(0x80 <= b < 0xA0 for b in head):
        try:
            head.decode("cp1252")
            return "cp1252"
        except UnicodeDecodeError:
            pass
    return "latin-1"


def _lines(f: io.TextIOWrapper, path: str) -> Iterator[tuple[str, str]]:
    """Each line (at most LINE_CHARS of it) and a note when it was cut."""
    number = 0
    while line := f.readline(LINE_CHARS):
        number += 1
        if len(line) < LINE_CHARS or line.endswith("\n"):
            yield line, ""
            continue
        length, more = len(line), ""
        while length <= SKIP_CHARS and (more := f.readline(1 << 20)):
            length += len(more)
            if more.endswith("\n"):
                break
        if more and not more.endswith("\n"):
            yield line, f"line cut at {LINE_CHARS} chars; not read past {SKIP_CHARS >> 20} MB of it"
            return
        rest = f"`sed -n {number}p {shlex.quote(path)} | cut -c {LINE_CHARS + 1}-{2 * LINE_CHARS}`"
        yield line, f"line cut at {LINE_CHARS} of {length - more.endswith(chr(10))} chars; {rest} prints more"


def _text(line: str, note: str) -> str:
    return line.rstrip("\n") + f" … [{note}]\n" if note else line


def _total(f: io.TextIOWrapper, count: int) -> int | None:
    """The file's number of lines, `count` of them read, if the rest is at most SKIP_CHARS."""
    more, last = 0, "\n"
    for _ in range(SKIP_CHARS >> 20):
        if not (chunk := f.read(1 << 20)):
            return count + more + (last != "\n")
        more, last = more + chunk.count("\n"), chunk[-1:]
    return None


def page(path: str, offset: int, limit: int) -> tuple[list[str], int | None, bool, bool, str]:
    """Lines `offset`.. (at most `limit`), the number of lines in the file (None: not counted, it
    is long), whether more follow, whether the file is blank (empty or whitespace only, when
    small), and the encoding it was decoded with. Raises OSError."""
    with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as raw:
        head = raw.read(SNIFF)
        if len(head) <= BLANK_CHECK and not head.strip() and not raw.read(1):
            return [], 0, False, True, "utf-8"
        raw.seek(0)
        name = encoding(head)
        f = io.TextIOWrapper(raw, encoding=name, errors="replace", newline="\n")
        lines: list[str] = []
        size = count = 0
        for count, (line, note) in enumerate(_lines(f, path), start=1):
            if count <= offset:
                continue
            if len(lines) >= limit or (lines and size + len(line) > PAGE_CHARS):
                return lines, _total(f, count), True, False, name
            lines.append(_text(line, note))
            size += len(line) + NUMBER_CHARS
        return lines, count, False, False, name


if __name__ == "__main__":
    try:
        print(json.dumps(page(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
    except (FileNotFoundError, IsADirectoryError):
        print(json.dumps({"error": "not_found"}))
    except OSError as exc:
        print(json.dumps({"error": str(exc)}))
