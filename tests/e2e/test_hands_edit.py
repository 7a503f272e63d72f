"""edit_file as the model meets it (issue 36, point 6): the file keeps its line endings (CRLF),
its encoding (Latin-1), a missing final newline and its mode; an edit of a file changed on disk
since the model read it is refused with the current text; a miss that differs in whitespace only
names the lines that nearly matched; a success shows the changed lines with some around them.
On the host and in the bubblewrap sandbox."""

from __future__ import annotations

import stat
from typing import Any

import pytest

from conftest import AugerEnv

WHERE = pytest.mark.parametrize("where", ["local", "sandbox"])


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def tool_messages(env: AugerEnv, *calls: dict[str, Any], where: str) -> list[str]:
    """What the model was told after making `calls`, one after another."""
    env.llm.add(*calls, {"text": "done"})
    proc = env.run("-n", "edit", "--mode", "yolo", *(["--sandbox"] if where == "sandbox" else []))
    assert proc.returncode == 0, proc.stderr
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


@WHERE
def test_an_edit_keeps_line_endings_encoding_final_newline_and_mode(auger_env: AugerEnv, where: str) -> None:
    root = auger_env.project
    (root / "run.sh").write_bytes(b"#!/bin/sh\r\necho one\r\necho two\r\nexit 0\r\n")
    (root / "run.sh").chmod(0o755)
    (root / "latin.txt").write_bytes("café = 1\nx = 2\n".encode("latin-1"))
    (root / "tail.txt").write_bytes(b"a\nb")
    crlf, latin, tail = tool_messages(
        auger_env,
        call("edit_file", file_path="/run.sh", old_string="echo one\necho two", new_string="echo 1\necho 2"),
        call("edit_file", file_path="/latin.txt", old_string="x = 2", new_string="x = 3"),
        call("edit_file", file_path="/tail.txt", old_string="a", new_string="A"),
        where=where,
    )
    assert (root / "run.sh").read_bytes() == b"#!/bin/sh\r\necho 1\r\necho 2\r\nexit 0\r\n", crlf
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o755
    assert (root / "latin.txt").read_bytes() == "café = 1\nx = 3\n".encode("latin-1"), latin
    assert (root / "tail.txt").read_bytes() == b"A\nb", tail
    # the change, with the lines around it, numbered as read_file shows them
    assert crlf.startswith("Successfully replaced 1 instance(s) of the string in '/run.sh'"), crlf
    shown = crlf.split("It now reads:\n", 1)[1]
    assert [line.split(maxsplit=1)[1] for line in shown.splitlines()] == [
        "#!/bin/sh",
        "echo 1",
        "echo 2",
        "exit 0",
    ], shown
    assert "\r" not in crlf


@WHERE
def test_a_stale_edit_is_refused_with_the_current_text(auger_env: AugerEnv, where: str) -> None:
    target = auger_env.project / "app.py"
    target.write_text("def main():\n    return 1\n")
    read, _changed, stale, again = tool_messages(
        auger_env,
        call("read_file", file_path="/app.py"),
        call("execute", command="printf 'def main():\\n    return 42  # changed\\n' > app.py"),
        call("edit_file", file_path="/app.py", old_string="return 1", new_string="return 2"),
        call("edit_file", file_path="/app.py", old_string="return 42", new_string="return 2"),
        where=where,
    )
    assert "return 1" in read
    assert stale.startswith("Error: '/app.py' changed on disk since you last read it; nothing was edited"), (
        stale
    )
    assert "return 42  # changed" in stale  # the fresh text, not what was read
    assert "Successfully replaced 1 instance(s)" in again, again
    assert target.read_text() == "def main():\n    return 2  # changed\n"


@WHERE
def test_a_near_miss_names_what_nearly_matched(auger_env: AugerEnv, where: str) -> None:
    target = auger_env.project / "tabs.py"
    target.write_text("def f(x):\n\tif x:\n\t\treturn 1   \n\treturn 0\n")
    [miss] = tool_messages(
        auger_env,
        call("edit_file", file_path="/tabs.py", old_string="    if x:\n        return 1", new_string="pass"),
        where=where,
    )
    assert miss.startswith("Error: String not found in file"), miss
    assert "Lines 2-3 match old_string except for whitespace" in miss, miss
    assert "'\\tif x:'" in miss and "'\\t\\treturn 1   '" in miss, miss
    assert target.read_text() == "def f(x):\n\tif x:\n\t\treturn 1   \n\treturn 0\n"
