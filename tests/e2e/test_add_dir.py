"""`--add-dir DIR`: another folder the file tools may use by its own absolute path, under the same
rules as the project (manual mode asks, so a headless run refuses a write there), visible to
sandboxed commands too; without it such a path is refused, and an untrusted project's config
cannot add one. The real `auger -n` against the scripted server; assertions on the tool results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def results(env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


@pytest.fixture
def other(tmp_path: Path) -> Path:
    folder = tmp_path / "other-repo"
    folder.mkdir()
    (folder / "lib.py").write_text("def shared():\n    return 42\n")
    return folder


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_the_file_tools_and_the_shell_reach_an_added_folder(
    auger_env: AugerEnv, other: Path, where: str
) -> None:
    auger_env.llm.add(
        call("read_file", file_path=f"{other}/lib.py"),
        call("write_file", file_path=f"{other}/new.py", content="x = 1\n"),
        call("grep", pattern="def shared", path=str(other)),
        call("execute", command=f"cat {other}/new.py"),
        {"text": "done"},
    )
    sandbox = ["--sandbox"] if where == "sandbox" else []
    proc = auger_env.run("-n", "use the other repo", "--mode", "yolo", "--add-dir", str(other), *sandbox)
    assert proc.returncode == 0, proc.stderr
    read, wrote, grep, cat = results(auger_env)
    assert "def shared():" in read and "return 42" in read
    assert (other / "new.py").read_text() == "x = 1\n" and "new.py" in wrote
    assert "lib.py" in grep
    assert "x = 1" in cat


def test_without_add_dir_the_folder_is_outside(auger_env: AugerEnv, other: Path) -> None:
    auger_env.llm.add(call("read_file", file_path=f"{other}/lib.py"), {"text": "done"})
    proc = auger_env.run("-n", "read it", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    [refused] = results(auger_env)
    assert "is outside the project" in refused and "return 42" not in refused


def test_the_same_rules_apply_in_the_added_folder(auger_env: AugerEnv, other: Path) -> None:
    auger_env.llm.add(call("write_file", file_path=f"{other}/evil.py", content="x\n"), {"text": "done"})
    proc = auger_env.run("-n", "write there", "--add-dir", str(other))  # manual: nobody to ask
    assert proc.returncode == 0, proc.stderr
    assert not (other / "evil.py").exists()


def test_an_untrusted_project_cannot_add_a_folder(auger_env: AugerEnv, other: Path) -> None:
    (auger_env.project / ".auger").mkdir()
    (auger_env.project / ".auger" / "config.toml").write_text(f'add_dirs = ["{other}"]\n')
    auger_env.llm.add(call("read_file", file_path=f"{other}/lib.py"), {"text": "done"})
    proc = auger_env.run("-n", "read it", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert "is outside the project" in results(auger_env)[0]


def test_a_missing_folder_is_a_usage_error(auger_env: AugerEnv, tmp_path: Path) -> None:
    proc = auger_env.run("-n", "hi", "--add-dir", str(tmp_path / "nope"))
    assert proc.returncode == 2 and f"--add-dir {tmp_path / 'nope'}: no such folder" in proc.stderr
