"""Real command lines through the permission engine (`shell_corpus.txt`, rules in
`shell_corpus.py`): every verdict, in manual and yolo mode, is the one written beside the line.
The corpus holds what the bash grammar must see: substitutions inside `$(( ))`, here-documents and
process substitution, `find -exec`, `xargs`, wrappers (`time -p`, `setsid`, `flock`, ...), pipes
into a shell, `eval`, variables as commands, quoting traps and links written through."""

from __future__ import annotations

from pathlib import Path

import pytest
from shell_corpus import judge, load

CASES = load()


def test_the_corpus_is_large_and_covers_every_verdict() -> None:
    assert len(CASES) >= 100
    assert {m for m, _, _ in CASES} == {"allow", "ask", "deny"}
    assert {y for _, y, _ in CASES} == {"allow", "ask", "deny"}


def test_every_corpus_line_gets_the_verdict_written_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUGER_HOME", str(tmp_path / "auger-home"))
    got = judge([c for _, _, c in CASES], tmp_path)
    wrong = [
        f"{command!r}: expected {manual}/{yolo}, got {now[0]}/{now[1]}"
        for (manual, yolo, command), now in zip(CASES, got, strict=True)
        if (manual, yolo) != tuple(now)
    ]
    assert not wrong, "\n".join(wrong)
