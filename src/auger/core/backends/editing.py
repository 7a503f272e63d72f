"""edit_file's replacement on a file's bytes, keeping the file as it was (standard library only).

deepagents' edit reads the file as UTF-8 with universal newlines and writes it back: CRLF files
come back LF and a Latin-1 file cannot be edited at all. `edit_bytes` keeps the file's encoding
(UTF-8, with its BOM if it had one, else Latin-1), its line endings (the model's `\\n` become the
file's `\\r\\n`) and everything it does not replace (a missing final newline stays missing); the
caller writes the bytes in place, so the mode stays too. A miss that differs only in whitespace
(tabs for spaces, indentation, trailing blanks) names the lines that nearly matched; a success
carries the changed lines with a few around them.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from deepagents.backends.protocol import BackendProtocol, EditResult
from deepagents.backends.utils import perform_string_replacement

AROUND = 3  # lines shown before and after a change
SHOWN_LINES, LINE_CHARS = 40, 500
NEAR_MISS_BYTES = 4 * 1024 * 1024  # larger files are not scanned for near misses


@dataclass
class Edited(EditResult):
    """An edit's result with the changed lines and a few around them (`excerpt`, numbered)."""

    excerpt: str | None = None


def _decode(data: bytes) -> tuple[str, str]:
    if data.startswith(codecs.BOM_UTF8):
        try:
            return data.decode("utf-8-sig"), "utf-8-sig"
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _lines(text: str) -> list[str]:
    return [line.removesuffix("\r") for line in text.split("\n")]


def numbered(text: str, first: int, count: int) -> str:
    """Lines `first`.. (1-based, at most `count`) of `text`, numbered `cat -n` style (each cut at
    LINE_CHARS)."""
    lines = _lines(text.removesuffix("\n"))
    start = max(first, 1)
    shown = lines[start - 1 : start - 1 + count]
    return "\n".join(f"{start + i:6}\t{line[:LINE_CHARS]}" for i, line in enumerate(shown))


def near_miss(text: str, old: str) -> str | None:
    """Where `old` matches but for whitespace, with those lines as they are (tabs shown as \\t)."""
    if len(text) > NEAR_MISS_BYTES:
        return None
    want = [" ".join(line.split()) for line in _lines(old.strip("\r\n"))]
    lines = _lines(text)
    flat = [" ".join(line.split()) for line in lines]
    for i in range(len(lines) - len(want) + 1):
        if flat[i : i + len(want)] == want:
            shown = "\n".join(f"{i + 1 + k:6}  {line!r}" for k, line in enumerate(lines[i : i + len(want)]))
            return (
                f"Lines {i + 1}-{i + len(want)} match old_string except for whitespace (tabs, spaces, "
                f"indentation or trailing blanks). They read (as Python strings):\n{shown}\n"
                "Copy their whitespace exactly into old_string."
            )
    return None


def edit_bytes(data: bytes, path: str, old: str, new: str, replace_all: bool) -> tuple[bytes, Edited]:
    """The file's new bytes (the old ones on an error) and the result to report for `path`."""
    text, encoding = _decode(data)
    old, new = (s.replace("\r\n", "\n").replace("\r", "\n") for s in (old, new))
    lines = text.count("\n")
    if lines and text.count("\r\n") * 2 > lines:  # mostly CRLF: the model's \n are the file's \r\n
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    done = perform_string_replacement(text, old, new, replace_all)
    if isinstance(done, str):
        hint = near_miss(text, old) if old and old not in text else None
        error = done if len(done) < 2000 else done[:2000] + " …"
        return data, Edited(error=f"{error}\n{hint}" if hint else error)
    changed, count = done
    try:
        out = changed.encode(encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        return data, Edited(
            error=f"Error: '{path}' is {encoding} text, which cannot hold {bad!r} from new_string; "
            "nothing was edited. Write those characters another way (an escape, or ASCII)."
        )
    at = text.count("\n", 0, text.find(old)) + 1
    shown = min(new.count("\n") + (not new.endswith("\n")) + 2 * AROUND, SHOWN_LINES)
    return out, Edited(path=path, occurrences=count, excerpt=numbered(changed, at - AROUND, shown))


def edit_by_transfer(
    backend: BackendProtocol, path: str, old: str, new: str, replace_all: bool
) -> EditResult:
    """`edit_bytes` on a file fetched with the backend's `download_files` and put back with its
    `upload_files` (which must overwrite in place: the bubblewrap sandbox's `cat >` does)."""
    [got] = backend.download_files([path])
    if got.error or got.content is None:
        missing = got.error in ("file_not_found", "is_directory")
        return EditResult(error=f"Error: File '{path}' not found" if missing else f"Error: {got.error}")
    out, result = edit_bytes(got.content, path, old, new, replace_all)
    if result.error is None and (error := backend.upload_files([(path, out)])[0].error):
        return EditResult(error=f"Error editing file '{path}': {error}")
    return result
