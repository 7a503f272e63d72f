"""End-to-end: `auger -n --sandbox --mode yolo` with real bubblewrap hides the user's keys and
AUGER_HOME from the model's commands, shows what `[sandbox] expose` names, and the project
still builds. HOME lives under /var/tmp: a home under /tmp would be hidden by the sandbox's
private /tmp whatever the hiding does."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- e2e-hunter2"


def run(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "execute", "args": {"command": command}}]}


@pytest.fixture
def user_home(auger_env: AugerEnv) -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="auger-e2e-home-", dir="/var/tmp")).resolve()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(KEY)
    (home / ".ssh" / "known_hosts").write_text("github.com ssh-ed25519 AAAA\n")
    (home / ".auger").mkdir()
    (home / ".auger" / "config.toml").write_text(
        (auger_env.home / "config.toml").read_text() + '[sandbox]\nexpose = ["~/.ssh/known_hosts"]\n'
    )
    auger_env.env["HOME"] = str(home)
    auger_env.env["AUGER_HOME"] = str(home / ".auger")
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_sandboxed_commands_cannot_read_keys_or_auger_home(auger_env: AugerEnv, user_home: Path) -> None:
    auger_env.llm.add(
        run("cat ~/.ssh/id_rsa"),
        run("ls -A $AUGER_HOME; cat $AUGER_HOME/config.toml"),
        run("cat ~/.ssh/known_hosts"),
        run("echo built > out.txt && cat out.txt"),
        {"text": "done"},
    )
    proc = auger_env.run("-n", "look around", "--output-format", "stream-json", "--mode", "yolo", "--sandbox")
    assert proc.returncode == 0, proc.stderr
    done = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert "No such file" in done[0]["output"] and "hunter2" not in done[0]["output"]
    listing = done[1]["output"]
    assert "No such file" in listing and "threads.db" not in listing and "scripted-model" not in listing
    assert "github.com ssh-ed25519" in done[2]["output"]  # exposed in the user's config
    assert done[3]["status"] == "success" and "built" in done[3]["output"]
    assert (auger_env.project / "out.txt").read_text() == "built\n"
    assert "hunter2" not in proc.stdout
    # the threads DB (in the hidden AUGER_HOME) was still written by auger itself, outside the sandbox
    assert (user_home / ".auger" / "threads.db").exists()
