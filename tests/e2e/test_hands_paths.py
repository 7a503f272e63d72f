"""The file tools as a model meets them (issue 36, points 1 and 5), end to end through the
scripted model: a host path printed by a traceback or `pwd` works in every file tool, virtual and
relative paths work as before, a path outside the project is refused naming the project root
(never re-rooted into it), and `read_file` numbers its lines, cuts a huge line with a note saying
how to read more, and decodes a Latin-1 file, saying so. Each test reads the tool results the
next model request carries."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")
APP = "def greet():\n    return 'hello'\n"


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def tool_messages(env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def statuses(env: AugerEnv, proc: Any) -> list[str]:
    return [e["status"] for e in env.events(proc) if e["type"] == "tool_call_finished"]


def run(
    env: AugerEnv, *calls: dict[str, Any], mode: str = "yolo", flags: tuple[str, ...] = ()
) -> tuple[list[str], list[str]]:
    env.llm.add(*calls, {"text": "done"})
    proc = env.run("-n", "work on the project", *STREAM, "--mode", mode, *flags)
    assert proc.returncode == 0, proc.stderr
    return tool_messages(env), statuses(env, proc)


def test_every_file_tool_takes_a_host_path_from_the_project(auger_env: AugerEnv) -> None:
    """`/home/me/proj/src/app.py` (a traceback's path) is the project's `src/app.py` in read_file,
    edit_file, write_file, ls, glob and grep — not `<project>/home/me/proj/src/app.py`."""
    root = auger_env.project.resolve()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP)
    src = f"{root}/src"
    messages, done = run(
        auger_env,
        call("read_file", file_path=f"{src}/app.py"),
        call("edit_file", file_path=f"{src}/app.py", old_string="'hello'", new_string="'hi'"),
        call("write_file", file_path=f"{root}/pkg/util.py", content="X = 1\n"),
        call("ls", path=src),
        call("glob", pattern="*.py", path=src),
        call("grep", pattern="hi", path=src, output_mode="content"),
    )
    assert done == ["success"] * 6, (done, messages)
    assert "return 'hello'" in messages[0]
    assert (root / "src" / "app.py").read_text() == "def greet():\n    return 'hi'\n"
    assert (root / "pkg" / "util.py").read_text() == "X = 1\n"
    first = root.parts[1]  # `tmp` for a pytest folder: a re-rooted path would have made `<project>/tmp/...`
    assert not (root / first).exists(), sorted(p.name for p in root.iterdir())
    assert "/src/app.py" in messages[3] and "app.py" in messages[4]
    assert "return 'hi'" in messages[5], messages[5]


def test_virtual_and_relative_paths_still_work(auger_env: AugerEnv) -> None:
    root = auger_env.project.resolve()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP)
    messages, done = run(
        auger_env,
        call("read_file", file_path="/src/app.py"),
        call("read_file", file_path="src/app.py"),
        call("write_file", file_path="/notes/plan.md", content="virtual\n"),  # a new project folder
        call("write_file", file_path="lib/helpers.py", content="relative\n"),  # /lib exists on the host
        call("edit_file", file_path="lib/helpers.py", old_string="relative", new_string="edited"),
    )
    assert done == ["success"] * 5, (done, messages)
    assert "return 'hello'" in messages[0] and "return 'hello'" in messages[1]
    assert (root / "notes" / "plan.md").read_text() == "virtual\n"
    assert (root / "lib" / "helpers.py").read_text() == "edited\n"


@pytest.mark.parametrize("mode", ["yolo", "manual"])
def test_a_path_outside_the_project_is_refused_not_re_rooted(auger_env: AugerEnv, mode: str) -> None:
    """`write_file("/tmp/repro.py")` used to write `<project>/tmp/repro.py`: the next
    `python /tmp/repro.py` failed and `git status` showed `tmp/`. Every file tool refuses such a
    path in every mode (manual does not ask about a call that cannot run), naming the project
    root, and nothing is written anywhere."""
    root = auger_env.project.resolve()
    name = f"auger-repro-{uuid.uuid4().hex}.py"
    messages, done = run(
        auger_env,
        call("write_file", file_path=f"/tmp/{name}", content="print(1)\n"),
        call("edit_file", file_path=f"/tmp/{name}", old_string="1", new_string="2"),
        call("read_file", file_path="/etc/passwd"),
        call("ls", path="/usr"),
        call("glob", pattern="*.conf", path="/etc"),
        call("grep", pattern="root", path="/etc"),
        mode=mode,
    )
    assert done == ["rejected"] * 6, (done, messages)
    for message in messages:
        assert f"is outside the project ({root})" in message, message
        assert "use a path under" in message and "root:x:0" not in message
    assert f"/tmp/{name} is outside the project" in messages[0]
    assert not (root / "tmp").exists() and not (root / "etc").exists() and not (root / "usr").exists()
    assert not (auger_env.project.parent / name).exists()


def test_a_missing_file_names_where_it_was_looked_for(auger_env: AugerEnv) -> None:
    root = auger_env.project.resolve()
    messages, done = run(
        auger_env,
        call("read_file", file_path="/src/nope.py"),
        call("edit_file", file_path=f"{root}/src/nope.py", old_string="a", new_string="b"),
    )
    assert done == ["error", "error"], (done, messages)
    for message in messages:
        assert f"no file at {root}/src/nope.py" in message and f"start at {root}" in message, message


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_read_file_numbers_lines_cuts_huge_lines_and_decodes_latin_1(auger_env: AugerEnv, where: str) -> None:
    """The same page from the host backend and from inside the bubblewrap sandbox."""
    root = auger_env.project.resolve()
    (root / "notes.txt").write_text("first\n\n\tthird\n")
    (root / "min.js").write_text("x" * 80_000)  # one 80 KB line
    (root / "latin.txt").write_bytes("café crème\nnaïve\n".encode("latin-1"))
    (root / "long.txt").write_text("".join(f"row {n} " + "y" * 200 + "\n" for n in range(1, 1001)))
    messages, done = run(
        auger_env,
        call("read_file", file_path="/notes.txt"),
        call("read_file", file_path="min.js"),
        call("read_file", file_path="/latin.txt"),
        call("read_file", file_path="/long.txt", offset=0, limit=1000),
        mode="manual",
        flags=("--sandbox",) if where == "sandbox" else (),
    )
    assert done == ["success"] * 4, (done, messages)
    notes, minified, latin, long = messages
    assert "     1\tfirst\n     2\t\n     3\t\tthird" in notes, notes
    assert len(minified) < 10_000, len(minified)
    assert "line cut at 5000 of 80000 chars" in minified
    assert f"sed -n 1p {root}/min.js | cut -c 5001-10000" in minified
    assert "     1\tcafé crème\n     2\tnaïve" in latin and "decoded as latin-1" in latin, latin
    assert "utf-8" not in latin.lower().replace("not utf-8", ""), latin  # no codec error
    assert len(long) < 70_000 and "next offset" in long, long[:200]  # a page stops at its byte cap
    assert "   200\trow 200 " in long and "  1000\trow 1000" not in long
