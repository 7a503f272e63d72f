"""A skill's `allowed-tools` bound its turn, end to end (the installed `auger -n "/skill args"`
against the scripted server, real skills from tests/fixtures/skills)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import AugerEnv

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "skills"
STREAM = ("--output-format", "stream-json")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def test_a_skill_turn_is_limited_to_its_allowed_tools(auger_env: AugerEnv) -> None:
    shutil.copytree(FIXTURES, auger_env.project / ".claude" / "skills")
    subprocess.run(["git", "init", "-q"], cwd=auger_env.project, check=True)
    auger_env.llm.add(
        call("execute", command="git diff --stat"),
        call("execute", command="git push origin main"),
        call("write_file", file_path="/notes.md", content="x"),
        {"text": "reviewed"},
        {"text": "a normal turn"},
    )
    proc = auger_env.run("-n", "/review-diff the parser", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    done = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert [d["status"] for d in done] == ["success", "rejected", "rejected"]
    assert (
        "not in this skill's (or command's) allowed-tools (Read, Grep, Glob, Bash(git diff:*)"
        in done[1]["output"]
    )
    assert not (auger_env.project / "notes.md").exists()
    first = auger_env.llm.requests[0]
    assert {"read_file", "grep", "glob", "ls", "execute"} <= offered(first)
    assert not {"write_file", "edit_file", "task"} & offered(first)
    assert "Focus on: the parser" in str(first["messages"])  # $ARGUMENTS expanded
    # the next turn (a plain prompt) has every tool again
    proc = auger_env.run("-r", "", "-n", "hello", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert {"write_file", "edit_file"} <= offered(auger_env.llm.requests[-1])
