"""`edit_bytes`, edit_file's replacement: the file's bytes stay what they were except for the
replaced text, whatever the encoding and line endings; what cannot be kept is refused."""

from __future__ import annotations

import codecs

import pytest

from auger.core.backends.editing import edit_bytes

CASES = [
    ("crlf", b"a\r\nb\r\nc\r\n", "a\nb", "x\ny\nz", b"x\r\ny\r\nz\r\nc\r\n"),
    ("lf", b"a\nb\nc\n", "b\n", "B\n", b"a\nB\nc\n"),
    ("no final newline", b"a\nb", "b", "B", b"a\nB"),
    ("bom", codecs.BOM_UTF8 + "é\nx\n".encode(), "x", "y", codecs.BOM_UTF8 + "é\ny\n".encode()),
    ("latin-1", "ç=1\nx\n".encode("latin-1"), "ç=1", "ç=2", "ç=2\nx\n".encode("latin-1")),
    ("mixed keeps lf", b"a\nb\nc\r\n", "a\nb", "A\nB", b"A\nB\nc\r\n"),
]


@pytest.mark.parametrize(("name", "data", "old", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_only_the_replaced_text_changes(name: str, data: bytes, old: str, new: str, expected: bytes) -> None:
    out, result = edit_bytes(data, "/f", old, new, False)
    assert result.error is None, result.error
    assert out == expected
    assert result.occurrences == 1 and result.path == "/f" and result.excerpt


def test_a_character_the_encoding_cannot_hold_is_refused() -> None:
    data = "ç=1\n".encode("latin-1")
    out, result = edit_bytes(data, "/f", "1", "€", False)
    assert out == data
    assert result.error is not None and "latin-1" in result.error and "'€'" in result.error


def test_ambiguous_and_missing_strings_leave_the_file_alone() -> None:
    data = b"x = 1\nx = 1\n"
    assert "appears 2 times" in (edit_bytes(data, "/f", "x = 1", "y", False)[1].error or "")
    assert edit_bytes(data, "/f", "x = 1", "y", True)[0] == b"y\ny\n"
    out, result = edit_bytes(data, "/f", "zzz", "y", False)
    assert out == data and "String not found" in (result.error or "") and "whitespace" not in result.error


def test_the_excerpt_shows_the_change_with_lines_around_it() -> None:
    data = "".join(f"line {i}\n" for i in range(1, 21)).encode()
    _, result = edit_bytes(data, "/f", "line 10\n", "ten\nTEN\n", False)
    numbers = [int(row.split()[0]) for row in (result.excerpt or "").splitlines()]
    assert numbers == list(range(7, 15))  # 3 before, the two new lines, 3 after
    assert "ten" in (result.excerpt or "") and "TEN" in (result.excerpt or "")
