"""read_content: one read sized by the listing, and still every byte when the file grew or
shrank since it was listed (real files)."""

from __future__ import annotations

import os
from pathlib import Path

from auger.core.rewind.changed import LINK
from auger.core.rewind.snapshot import read_content


def test_a_file_read_with_its_listed_size_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"print(1)\n" * 100)
    assert read_content(str(path), "100644", path.stat().st_size) == b"print(1)\n" * 100


def test_a_file_that_grew_since_it_was_listed_is_read_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    data = os.urandom(3 << 20)  # more than one follow-up read
    path.write_bytes(data)
    assert read_content(str(path), "100644", 10) == data
    assert read_content(str(path), "100644") == data  # no size known


def test_a_file_that_shrank_since_it_was_listed_gives_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"short")
    assert read_content(str(path), "100644", 4096) == b"short"


def test_an_empty_file_and_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    assert read_content(str(tmp_path / "empty"), "100644", 0) == b""
    (tmp_path / "link").symlink_to("target/elsewhere")
    assert read_content(str(tmp_path / "link"), LINK) == b"target/elsewhere"
