"""Custom commands end to end: the installed `auger -n "/name args"` against the scripted server,
with real command files (tests/fixtures/commands)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import AugerEnv
from conftest_llm import typed

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "commands"
STREAM = ("--output-format", "stream-json")


def user_text(request: dict[str, Any]) -> str:
    return typed([m for m in request["messages"] if m["role"] == "user"][-1]["content"])


def test_a_command_runs_with_its_context_tools_and_model(auger_env: AugerEnv) -> None:
    shutil.copytree(FIXTURES, auger_env.project / ".claude" / "commands")
    subprocess.run(["git", "init", "-q", str(auger_env.project)], check=True)
    (auger_env.project / "NOTES.md").write_text("NOTE-7\n")
    (auger_env.project / "new.py").write_text("x = 1\n")
    folder = auger_env.project / ".auger" / "commands"
    folder.mkdir(parents=True)
    (folder / "quick.md").write_text("---\nmodel: local:other-model\ndescription: q\n---\nAnswer: $1\n")
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "git add new.py"}}]},
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/x.md", "content": "x"}}]},
        "committed",
        "quick answer",
    )
    proc = auger_env.run(
        "-n", "/commit add new.py", *STREAM, "--mode", "yolo", "--trust-project"
    )  # its allowed-tools
    assert proc.returncode == 0, proc.stderr
    prompt = user_text(auger_env.llm.requests[0])
    assert "?? new.py" in prompt and "NOTE-7" in prompt and "Message: add new.py" in prompt
    offered = {t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]}
    assert offered == {"execute"}  # allowed-tools: Bash(git ...) only
    done = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert [d["status"] for d in done] == ["success", "rejected"]
    assert not (auger_env.project / "x.md").exists()
    assert "git branch --show-current" in proc.stderr  # not allowed: not run, and the user is told

    proc = auger_env.run("-n", "/quick yes")
    assert proc.returncode == 0, proc.stderr
    assert auger_env.llm.requests[-1]["model"] == "other-model"
    assert user_text(auger_env.llm.requests[-1]) == "Answer: yes"


def test_a_nested_real_command_and_its_claude_model_alias(auger_env: AugerEnv) -> None:
    shutil.copytree(FIXTURES, auger_env.project / ".claude" / "commands")
    auger_env.llm.add("on it")
    proc = auger_env.run("-n", "/tools:issue 4711")
    assert proc.returncode == 0, proc.stderr
    assert "Please analyze and fix the GitHub issue: 4711." in user_text(auger_env.llm.requests[0])
    assert auger_env.llm.requests[0]["model"] == "scripted-model"
    assert "model 'claude-sonnet-4-0' is not a provider:model spec" in proc.stderr
