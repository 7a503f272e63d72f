"""PreModel / PostModel hooks around each model call and Notification hooks, end to end (the
installed `auger -n` against the scripted server), plus a permission_prompt Notification through
an in-process Session that asks a human."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from auger.core import events as ev
from conftest import AugerEnv
from conftest_llm import typed
from session_helpers import drive, open_session


def hooks(env: AugerEnv, table: dict[str, Any]) -> None:
    (env.home / "hooks.json").write_text(json.dumps({"hooks": table}))


def group(command: str, matcher: str = "") -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def dump_to(folder: Path) -> str:
    """A hook command that saves its stdin as one file per run in `folder`."""
    folder.mkdir(exist_ok=True)
    return f"cat > $(mktemp -p {folder})"


def seen(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(f.read_text()) for f in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns)]


def test_pre_model_sees_the_request_and_adds_to_the_system_prompt(
    auger_env: AugerEnv, tmp_path: Path
) -> None:
    out = {"hookSpecificOutput": {"hookEventName": "PreModel", "additionalContext": "HOUSE-RULE-7"}}
    dump = dump_to(tmp_path / "pre")
    hooks(auger_env, {"PreModel": group(f"{dump}; echo '{json.dumps(out)}'", "local:.*")})
    auger_env.llm.add("fine")
    proc = auger_env.run("-n", "what is 2+2?")
    assert proc.returncode == 0, proc.stderr
    [payload] = seen(tmp_path / "pre")
    assert payload["hook_event_name"] == "PreModel" and payload["model"] == "local:scripted-model"
    last = payload["messages"][-1]  # as the model is sent it: the local-context note in front
    assert last["role"] == "user" and typed(last["content"]) == "what is 2+2?"
    assert "execute" in payload["tools"] and payload["system_prompt"]
    system = auger_env.llm.requests[0]["messages"][0]
    assert system["role"] == "system" and "HOUSE-RULE-7" in str(system["content"])


def test_pre_model_block_ends_the_turn_without_calling_the_model(auger_env: AugerEnv) -> None:
    hooks(auger_env, {"PreModel": group("echo 'token budget spent' >&2; exit 2")})
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 1
    assert "A PreModel hook blocked the model call: token budget spent" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert auger_env.llm.requests == []


def test_post_model_sees_the_reply_and_can_block_it(auger_env: AugerEnv, tmp_path: Path) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "calls = data['reply']['tool_calls']\n"
        "if any('rm -rf' in c['args'].get('command', '') for c in calls):\n"
        "    print('no rm -rf plans', file=sys.stderr); sys.exit(2)\n"
    )
    hooks(auger_env, {"PostModel": group(f"python3 {guard}")})
    (auger_env.project / "keep").mkdir()
    auger_env.llm.add({"tool_calls": [{"name": "execute", "args": {"command": "rm -rf keep"}}]})
    proc = auger_env.run("-n", "clean", "--mode", "yolo")
    assert proc.returncode == 1
    assert "A PostModel hook blocked the model's reply: no rm -rf plans" in proc.stderr
    assert (auger_env.project / "keep").is_dir()


def test_notification_when_the_turn_finishes(auger_env: AugerEnv, tmp_path: Path) -> None:
    hooks(auger_env, {"Notification": group(dump_to(tmp_path / "n"), "idle_prompt")})
    auger_env.llm.add("done")
    assert auger_env.run("-n", "hi").returncode == 0
    [note] = seen(tmp_path / "n")
    assert note["notification_type"] == "idle_prompt" and note["message"]


@pytest.fixture
def project_cwd(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    subprocess.run(["git", "init", "-q", str(auger_env.project)], check=True, env=auger_env.env)
    return auger_env.project


async def test_notification_before_a_human_is_asked(
    auger_env: AugerEnv, project_cwd: Path, tmp_path: Path
) -> None:
    hooks(auger_env, {"Notification": group(dump_to(tmp_path / "n"), "permission_prompt")})
    auger_env.llm.add({"tool_calls": [{"name": "execute", "args": {"command": "echo hi"}}]}, "ok")
    session = await open_session(auger_env)
    try:
        events = await drive(session, "go", [ev.ApprovalDecision("approve")])
    finally:
        await session.aclose()
    assert [e for e in events if isinstance(e, ev.ApprovalRequested)]
    [note] = seen(tmp_path / "n")
    assert note["notification_type"] == "permission_prompt" and "execute" in note["message"]
