"""Subagents know the project (issue 36, item 8): the general-purpose subagent's request carries
the project's AGENTS.md and the local-context note; the read-only explorer's carries the AGENTS.md
but no text about tools it does not have (the shell, editing). The real `auger` against the
scripted server; assertions are on the subagent's request the server received."""

from __future__ import annotations

import json
from typing import Any

from conftest import AugerEnv

RULE = "Run the tests with `make check-zebra`."


def _subagent_request(env: AugerEnv, kind: str) -> dict[str, Any]:
    (env.project / "AGENTS.md").write_text(f"# Project rules\n{RULE}\n")
    task = {"name": "task", "args": {"description": "find where x is defined", "subagent_type": kind}}
    env.llm.add({"tool_calls": [task]}, {"text": "x is in a.py:1"}, {"text": "done"})
    proc = env.run("-n", "where is x?", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    return env.llm.requests[1]  # the subagent's first model call


def _system(request: dict[str, Any]) -> str:
    texts = [m["content"] for m in request["messages"] if m["role"] == "system"]
    return "".join(t if isinstance(t, str) else "".join(b.get("text", "") for b in t) for t in texts)


def _first_user(request: dict[str, Any]) -> str:
    return json.dumps(next(m for m in request["messages"] if m["role"] == "user"))


def test_the_general_purpose_subagent_gets_the_agents_md_and_the_local_context(auger_env: AugerEnv) -> None:
    request = _subagent_request(auger_env, "general-purpose")
    assert RULE in _system(request)
    assert "## Local context" in _first_user(request) and "find where x is defined" in _first_user(request)


def test_the_explorer_gets_the_project_but_no_text_about_tools_it_lacks(auger_env: AugerEnv) -> None:
    request = _subagent_request(auger_env, "explorer")
    assert sorted(t["function"]["name"] for t in request["tools"]) == ["glob", "grep", "ls", "read_file"]
    system, tools = _system(request), json.dumps(request["tools"])
    assert RULE in system and "## Local context" in _first_user(request)
    for other in ("execute", "edit_file", "write_file", "write_todos", "/large_tool_results/"):
        assert other not in system + tools, other
