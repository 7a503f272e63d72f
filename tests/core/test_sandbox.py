"""BubblewrapSandbox against a real `bwrap` (no mocks). Requires bubblewrap to be installed."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auger.core.backends.bwrap import MISSING_BWRAP, check_bwrap
from auger.core.backends.local_shell import LocalShell
from auger.core.backends.sandbox import BubblewrapSandbox
from auger.errors import ConfigError


@pytest.fixture(scope="module", autouse=True)
def _bwrap_works() -> None:
    check_bwrap()  # a ConfigError here fails every test loudly: these tests must never be skipped


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def sandbox(project: Path) -> Iterator[BubblewrapSandbox]:
    box = BubblewrapSandbox(project, timeout=30)
    yield box
    box.close()


def test_check_bwrap_reports_missing_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ConfigError) as err:
        check_bwrap()
    assert str(err.value) == MISSING_BWRAP
    assert "\n" not in str(err.value)


def test_commands_run_in_the_project_and_can_write_there(sandbox: BubblewrapSandbox, project: Path) -> None:
    result = sandbox.execute("pwd && echo made > made.txt && mkdir -p sub && touch sub/x")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(project.resolve())
    assert (project / "made.txt").read_text() == "made\n"
    assert (project / "sub" / "x").exists()


def test_cannot_write_outside_the_project(sandbox: BubblewrapSandbox) -> None:
    home = Path.home()
    marker = f"auger-sandbox-{os.getpid()}"
    for target in (f"/etc/{marker}", f"$HOME/{marker}", f"/usr/{marker}"):
        result = sandbox.execute(f"touch {target}")
        assert result.exit_code != 0, target
        assert "Read-only file system" in result.output
    assert not Path(f"/etc/{marker}").exists()
    assert not (home / marker).exists()
    # As root, bwrap keeps capabilities unless dropped; remounting / read-write must fail.
    escape = sandbox.execute(f"mount -o remount,bind,rw / && touch /etc/{marker}")
    assert escape.exit_code != 0
    assert not Path(f"/etc/{marker}").exists()


def test_tmp_is_private(sandbox: BubblewrapSandbox) -> None:
    marker = f"auger-private-tmp-{os.getpid()}"
    assert sandbox.execute(f"echo hi > /tmp/{marker} && cat /tmp/{marker}").output.strip() == "hi"
    assert not Path(f"/tmp/{marker}").exists()
    assert sandbox.execute(f"cat /tmp/{marker}").output.strip() == "hi"  # lasts across commands


def _connect_cmd(port: int) -> str:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
    return f'{sys.executable} -c "{code}"'


def test_network_is_off_by_default_and_on_when_asked(project: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        on_host = subprocess.run(_connect_cmd(port), shell=True, check=False)
        assert on_host.returncode == 0  # the listener is reachable from the host
        closed = BubblewrapSandbox(project, timeout=30)
        result = closed.execute(_connect_cmd(port))
        assert result.exit_code != 0
        assert "connected" not in result.output
        assert "ConnectionRefusedError" in result.output or "Network is unreachable" in result.output
        opened = BubblewrapSandbox(project, timeout=30, network=True)
        result = opened.execute(_connect_cmd(port))
        assert result.exit_code == 0, result.output
        assert "connected" in result.output
        closed.close()
        opened.close()


def test_build_and_test_inside_the_project(sandbox: BubblewrapSandbox) -> None:
    assert sandbox.write("/calc.py", "def add(a, b):\n    return a + b\n").error is None
    test = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    assert sandbox.write("/tests/test_calc.py", test).error is None
    result = sandbox.execute(
        f"{sys.executable} -m pytest -q -p no:cacheprovider --rootdir . tests", timeout=60
    )
    assert result.exit_code == 0, result.output
    assert "1 passed" in result.output
    assert sandbox.execute(f"{sys.executable} -c 'import calc; print(calc.add(1, 1))'").output.strip() == "2"


def test_timeout_kills_the_command(sandbox: BubblewrapSandbox) -> None:
    start = time.monotonic()
    result = sandbox.execute("sleep 4242; echo never", timeout=1)
    assert time.monotonic() - start < 10
    assert result.exit_code == 124
    assert "timed out after 1 seconds" in result.output
    assert "never" not in result.output
    time.sleep(0.2)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert "sleep 4242" not in ps


async def test_cancelled_async_command_is_killed(sandbox: BubblewrapSandbox) -> None:
    task = asyncio.create_task(sandbox.aexecute("sleep 4343"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert "sleep 4343" not in ps
    assert (await sandbox.aexecute("echo ok")).output.strip() == "ok"


def test_output_keeps_head_and_tail_with_a_note(project: Path) -> None:
    box = BubblewrapSandbox(project, max_output_bytes=1000)
    result = box.execute("yes | head -c 300000; echo done >&2")
    assert result.truncated
    assert result.exit_code == 0
    assert result.output.startswith("y\ny\n")
    assert "[299005 bytes cut]" in result.output  # no spill folder given: nothing saved
    assert result.output.endswith("y\ndone\n")
    assert len(result.output) < 1200
    box.close()


def test_secret_looking_variables_are_dropped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = ["OPENAI_API_KEY", "GITHUB_TOKEN", "MY_SECRET", "DB_PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS"]
    for name in secrets:
        monkeypatch.setenv(name, "hunter2")
    monkeypatch.setenv("AUGER_PLAIN_SETTING", "visible")
    box = BubblewrapSandbox(project)
    seen = dict(line.split("=", 1) for line in box.execute("env").output.splitlines() if "=" in line)
    assert not set(secrets) & set(seen)
    assert "hunter2" not in seen.values()
    assert seen["AUGER_PLAIN_SETTING"] == "visible"
    assert seen["HOME"] == os.environ["HOME"]
    assert seen["PATH"] == os.environ["PATH"]
    box.close()


def test_paths_escaping_the_project_are_refused(sandbox: BubblewrapSandbox, project: Path) -> None:
    (project / "out").symlink_to("/etc")
    assert "outside the project" in (sandbox.read("/../etc/passwd").error or "")
    assert "outside the project" in (sandbox.read("/out/passwd").error or "")
    assert "outside the project" in (sandbox.write("../escaped.txt", "x").error or "")
    assert "outside the project" in (sandbox.write("/out/escaped.txt", "x").error or "")
    assert "outside the project" in (sandbox.edit("/out/passwd", "root", "toor").error or "")
    assert "outside the project" in (sandbox.ls("/..").error or "")
    assert "outside the project" in (sandbox.glob("*", "/out").error or "")
    assert "outside the project" in (sandbox.grep("root", "/out").error or "")
    assert sandbox.upload_files([("/out/x", b"x")])[0].error == "invalid_path"
    assert sandbox.download_files(["/out/passwd"])[0].error == "invalid_path"
    assert [e["path"] for e in sandbox.ls("/").entries or []] == []  # the escaping symlink is not listed
    assert not (project.parent / "escaped.txt").exists()


def test_large_edit_goes_through_private_tmp(sandbox: BubblewrapSandbox, project: Path) -> None:
    sandbox.write("/big.txt", "start\nOLD\nend\n")
    big = "x" * 80_000  # above BaseSandbox's inline-edit limit: uploads to /tmp, then edits in a 2nd command
    result = sandbox.edit("/big.txt", "OLD", big)
    assert result.error is None and result.path == "/big.txt" and result.occurrences == 1
    assert (project / "big.txt").read_text() == f"start\n{big}\nend\n"


# -- parity with LocalShell(virtual_mode=True) --------------------------------------------------

SEED = {
    "README.md": "# demo\nhello world\n",
    "src/app.py": "import os\n\n\ndef main():\n    print('hello')\n",
    "src/util/helpers.py": "def helper():\n    return 'hello again'\n",
    "crlf.txt": "one\r\ntwo\r\n",
    "empty.txt": "",
}


def _files(result: Any) -> list[tuple[str, bool]]:
    return sorted((item["path"], item["is_dir"]) for item in result)


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


OPS: dict[str, Any] = {
    "write-new": lambda b: b.write("/new/dir/file.txt", "fresh\n"),
    "write-overwrite": lambda b: b.write("/README.md", "replaced\n"),
    "read": lambda b: b.read("/src/app.py"),
    "read-page": lambda b: b.read("/src/app.py", offset=1, limit=2),
    "read-crlf": lambda b: b.read("crlf.txt"),
    "read-empty": lambda b: b.read("/empty.txt"),
    "read-missing": lambda b: b.read("/nope.txt"),
    "edit": lambda b: b.edit("/src/app.py", "print('hello')", "print('bye')"),
    "edit-all": lambda b: (b.write("/r.txt", "a a a\n"), b.edit("/r.txt", "a", "b", replace_all=True)),
    "edit-missing-file": lambda b: b.edit("/nope.txt", "a", "b"),
    "ls-root": lambda b: (b.ls("/").error, _files(b.ls("/").entries)),
    "ls-sub": lambda b: (b.ls("/src").error, _files(b.ls("src").entries)),
    "ls-missing": lambda b: b.ls("/nope"),
    "glob-py": lambda b: (b.glob("*.py").error, _files(b.glob("*.py").matches)),
    "glob-under": lambda b: (b.glob("**/*.py", "/src").error, _files(b.glob("**/*.py", "/src").matches)),
    "glob-missing": lambda b: (b.glob("*.py", "/nope").error, b.glob("*.py", "/nope").matches),
    "grep": lambda b: b.grep("hello"),
    "grep-path": lambda b: b.grep("hello", "/src"),
    "grep-glob": lambda b: b.grep("hello", glob="*.py"),
    "grep-none": lambda b: b.grep("absent-text"),
    "grep-regex": lambda b: b.grep(r"hel+o\b", context_lines=1, file_type="py"),
    "grep-missing": lambda b: b.grep("hello", "/nope"),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_file_tools_match_local_shell_backend(op: str, tmp_path: Path) -> None:
    roots = {name: tmp_path / name for name in ("local", "sandbox")}
    for root in roots.values():
        for rel, content in SEED.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content.encode())
    local = LocalShell(root_dir=roots["local"], virtual_mode=True)
    box = BubblewrapSandbox(roots["sandbox"])
    try:
        expected, got = OPS[op](local), OPS[op](box)
        for result, root in ((expected, roots["local"]), (got, roots["sandbox"])):
            if isinstance(getattr(result, "error", None), str):  # a missing file's error names its root
                result.error = result.error.replace(str(root.resolve()), "<root>")
        if op.startswith("grep"):
            expected.matches = sorted(expected.matches, key=lambda m: (m["path"], m["line"]))
            got.matches = sorted(got.matches, key=lambda m: (m["path"], m["line"]))
        assert got == expected
        assert _snapshot(roots["sandbox"]) == _snapshot(roots["local"])
    finally:
        box.close()


async def test_async_file_tools_use_virtual_paths(sandbox: BubblewrapSandbox) -> None:
    assert (await sandbox.awrite("/a/b.txt", "hi\n")).path == "/a/b.txt"
    assert (await sandbox.aread("/a/b.txt")).file_data == {"content": "     1\thi\n", "encoding": "utf-8"}
    assert (await sandbox.aedit("/a/b.txt", "hi", "ho")).path == "/a/b.txt"
    assert [e["path"] for e in (await sandbox.als("/a")).entries or []] == ["/a/b.txt"]
    assert [m["path"] for m in (await sandbox.aglob("**/*.txt")).matches or []] == ["/a/b.txt"]
    assert (await sandbox.agrep("ho")).matches == [{"path": "/a/b.txt", "line": 1, "text": "ho"}]
    assert (await sandbox.adownload_files(["/a/b.txt"]))[0].content == b"ho\n"
    assert (await sandbox.adelete("/a/b.txt")).path == "/a/b.txt"
