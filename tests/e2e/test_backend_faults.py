"""End-to-end faults of the agent's backend, each as the model meets it: a `--sandbox` run leaves
no private /tmp behind, a symlink loop is listed as a link, a project folder deleted mid-turn is
not recreated by a write, a full disk is one line naming the path, and `git commit` without -m
fails at once instead of waiting for an editor until the shell timeout."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from conftest import AUGER, AugerEnv


def _tool_messages(auger_env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def _run(
    auger_env: AugerEnv, *calls: dict[str, object], sandbox: bool = False
) -> subprocess.CompletedProcess[str]:
    auger_env.llm.add(*({"tool_calls": [call]} for call in calls), {"text": "done"})
    proc = auger_env.run("-n", "go", "--mode", "yolo", *(["--sandbox"] if sandbox else []))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def test_a_sandbox_run_removes_its_private_tmp(auger_env: AugerEnv, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    auger_env.env["TMPDIR"] = str(tmp)
    _run(auger_env, {"name": "execute", "args": {"command": "echo kept > /tmp/x; cat /tmp/x"}}, sandbox=True)
    assert "kept" in _tool_messages(auger_env)[0]
    assert not list(tmp.glob("auger-sandbox-tmp-*"))


def test_a_symlink_loop_is_listed_as_a_link(auger_env: AugerEnv) -> None:
    (auger_env.project / "loop").symlink_to("loop")
    (auger_env.project / "notes.md").write_text("hi\n")
    _run(auger_env, {"name": "ls", "args": {"path": "/"}})
    [listing] = _tool_messages(auger_env)
    assert "/notes.md" in listing
    assert "/loop -> loop (a link that cannot be followed)" in listing


def test_a_project_folder_deleted_mid_turn_is_not_recreated(auger_env: AugerEnv, tmp_path: Path) -> None:
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    auger_env.project = project
    _run(
        auger_env,
        {"name": "execute", "args": {"command": f"rm -rf {project}"}},
        {"name": "write_file", "args": {"file_path": "/new.txt", "content": "x"}},
        {"name": "execute", "args": {"command": "echo still here"}},
    )
    _, write, execute = _tool_messages(auger_env)
    assert f"the folder {project} no longer exists" in write
    assert f"the folder {project} no longer exists" in execute
    assert not project.exists()


def test_a_full_disk_is_one_line_naming_the_path(auger_env: AugerEnv) -> None:
    """The artifacts folder (where cut command output is saved) on a 1 MB tmpfs, in a private
    mount namespace of the auger process."""
    artifacts = auger_env.home / "artifacts"
    artifacts.mkdir()
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "head -c 5000000 /dev/zero | tr '\\0' y"}}]},
        {"text": "done"},
    )
    mount = f'mount -t tmpfs -o size=1m tmpfs "{artifacts}" && exec "$0" "$@"'
    argv = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mount, AUGER]
    proc = subprocess.run(
        [*argv, "-n", "go", "--mode", "yolo"],
        capture_output=True,
        text=True,
        cwd=auger_env.project,
        env=auger_env.env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    [message] = _tool_messages(auger_env)
    assert f"the full output was not saved ({artifacts}/command_output/" in message
    assert ".log: disk full)" in message
    assert message.count("\n") < 2100  # the output window, the one line, and no traceback
    logs = "".join(f.read_text() for f in (auger_env.home / "logs").iterdir())
    assert "No space left on device" in logs  # the traceback is in the log


def test_a_full_disk_under_auger_home_is_one_line_per_problem(auger_env: AugerEnv, tmp_path: Path) -> None:
    """AUGER_HOME (thread database, logs) on a 400 KB tmpfs; a 500 KB tool call fills it."""
    saved = tmp_path / "config.toml"
    saved.write_text((auger_env.home / "config.toml").read_text())
    auger_env.llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.txt", "content": "x" * 500_000}}]},
        {"text": "done"},
    )
    home = auger_env.home
    mount = (
        f'mount -t tmpfs -o size=400k tmpfs "{home}" && cp "{saved}" "{home}/config.toml" && exec "$0" "$@"'
    )
    argv = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mount, AUGER]
    proc = subprocess.run(
        [*argv, "-n", "write it", "--mode", "yolo"],
        capture_output=True,
        text=True,
        cwd=auger_env.project,
        env=auger_env.env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr[:3000]
    log_line, db_line = proc.stderr.splitlines()
    assert log_line == f"auger: cannot write the log file {home}/logs/auger.log (disk full); logging stopped"
    assert db_line.startswith(
        f"auger: The thread database {home}/threads.db failed during the turn (database or disk is full)"
    ), db_line
    assert "Check the disk (space, permissions), then resume the thread (auger -r " in db_line


def test_git_commit_without_message_fails_at_once(auger_env: AugerEnv) -> None:
    config = auger_env.home / "config.toml"
    config.write_text("shell_timeout = 30\n" + config.read_text())
    git = ["git", "-C", str(auger_env.project)]
    subprocess.run([*git, "init", "-q"], check=True)
    (auger_env.project / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    auger_env.env.update(
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"
    )
    start = time.monotonic()
    _run(auger_env, {"name": "execute", "args": {"command": "git commit"}})
    assert time.monotonic() - start < 20
    [message] = _tool_messages(auger_env)
    assert "timed out" not in message
    assert "editor" in message.lower() and "Exit code: 1" in message
