"""ProjectFiles.read pages a file like deepagents' FilesystemBackend.read (which reads it whole)."""

from __future__ import annotations

from pathlib import Path

import pytest
from deepagents.backends import FilesystemBackend

from auger.core.backends.project_files import ProjectFiles

FILES = {
    "lines.txt": "".join(f"line {n}\n" for n in range(1, 51)),
    "no_newline.txt": "a\nb\nc",
    "crlf.txt": "one\r\ntwo\r\nthree\r\n",
    "blank.txt": "  \n\n",
    "empty.txt": "",
    "unicode.txt": "héllo\nwörld ✓\n",
}
WINDOWS = [(0, 2000), (0, 3), (2, 2), (49, 5), (-4, 2), (0, 0), (60, 5)]


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize(("offset", "limit"), WINDOWS)
def test_a_page_matches_the_sdk(tmp_path: Path, name: str, offset: int, limit: int) -> None:
    (tmp_path / name).write_bytes(FILES[name].encode())
    expected = FilesystemBackend(root_dir=tmp_path, virtual_mode=True).read(f"/{name}", offset, limit)
    got = ProjectFiles(root_dir=tmp_path, virtual_mode=True).read(f"/{name}", offset, limit)
    assert (got.error is None) == (expected.error is None), (got.error, expected.error)
    if expected.error is None:
        assert got.file_data is not None and expected.file_data is not None
        start = got.start_line or 1
        rows = got.file_data["content"].splitlines()
        if got.start_line is not None:  # numbered `cat -n` style; the SDK's page is bare
            assert [r.split("\t", 1)[0] for r in rows] == [f"{n:>6}" for n in range(start, start + len(rows))]
            rows = [r.split("\t", 1)[1] for r in rows]
        assert rows == expected.file_data["content"].splitlines()
        assert (got.start_line, got.end_line, got.next_offset) == (
            expected.start_line,
            expected.end_line,
            expected.next_offset,
        )
        assert got.total_lines == expected.total_lines


def test_a_missing_file_and_a_folder_are_not_found(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    files = ProjectFiles(root_dir=tmp_path, virtual_mode=True)
    root = tmp_path.resolve()
    where = f"(file tool paths start at {root})"
    assert files.read("/nope.txt").error == f"File '/nope.txt' not found: no file at {root}/nope.txt {where}"
    assert files.read("/folder").error == f"File '/folder' not found: no file at {root}/folder {where}"
    assert "traversal" in str(files.read("/../etc/passwd").error)


@pytest.mark.parametrize(
    ("data", "offset", "text", "note"),
    [
        ("héllo\nwörld\n".encode("utf-16"), 0, "     1\théllo\n     2\twörld\n", "decoded as utf-16"),
        ("“smart” — dash\n".encode("cp1252"), 0, "     1\t“smart” — dash\n", "decoded as cp1252"),
        ("café\n".encode("latin-1"), 0, "     1\tcafé\n", "decoded as latin-1"),
        (b"\xef\xbb\xbfbom\n", 0, "     1\tbom\n", None),
        (
            b"a" * 70_000 + b"\nbad \xff byte\n",
            1,
            "     2\tbad \ufffd byte\n",
            "not valid UTF-8",
        ),  # past the sniff
    ],
    ids=["utf-16", "cp1252", "latin-1", "utf-8-bom", "invalid-utf-8"],
)
def test_other_encodings_are_decoded_and_named(
    tmp_path: Path, data: bytes, offset: int, text: str, note: str | None
) -> None:
    (tmp_path / "f.txt").write_bytes(data)
    got = ProjectFiles(root_dir=tmp_path, virtual_mode=True).read("/f.txt", offset=offset)
    assert got.file_data is not None, got.error
    content = got.file_data["content"]
    assert content.startswith(text), content[:300]
    assert (note in content) if note else "UTF-8" not in content
