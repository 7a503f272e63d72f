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


def _defined_subagent_request(env: AugerEnv, frontmatter: str) -> tuple[dict[str, Any], str]:
    (env.project / "AGENTS.md").write_text(f"# Project rules\n{RULE}\n")
    agents = env.project / ".auger" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(
        f"---\nname: scout\ndescription: Finds things.\n{frontmatter}---\n\nYOU ARE THE SCOUT.\n"
    )
    task = {"name": "task", "args": {"description": "find x", "subagent_type": "scout"}}
    env.llm.add(
        {"tool_calls": [task], "when": {"model": "scripted-model"}},
        {"text": "x is in a.py:1", "when": {"model": "other-model"}},
        {"text": "done", "when": {"model": "scripted-model"}},
    )
    proc = env.run("-n", "where is x?", "--mode", "yolo", "--trust-project")
    assert proc.returncode == 0, proc.stderr
    return env.llm.requests[1], proc.stderr


def test_a_subagent_is_told_its_situation_and_model(auger_env: AugerEnv) -> None:
    general = _system(_subagent_request(auger_env, "general-purpose"))
    assert "## Situation" in general and "Model: scripted-model (provider: local)" in general
    assert "Subagent: nobody answers questions here" in general and "Headless:" not in general
    auger_env.llm.requests.clear()
    pinned, _ = _defined_subagent_request(auger_env, "model: local:other-model\n")
    assert pinned["model"] == "other-model" and "Model: other-model (provider: local)" in _system(pinned)
    assert RULE in _system(pinned) and "## Local context" in _first_user(pinned)


def test_an_agent_file_can_opt_out_of_the_project_context(auger_env: AugerEnv) -> None:
    request, _ = _defined_subagent_request(auger_env, "model: local:other-model\nproject_context: false\n")
    system = _system(request)
    assert "YOU ARE THE SCOUT." in system and "## Situation" in system
    assert RULE not in system and "## Local context" not in json.dumps(request["messages"])


def test_a_wrong_project_context_value_skips_the_file_and_says_why(auger_env: AugerEnv) -> None:
    (auger_env.project / ".auger" / "agents").mkdir(parents=True)
    (auger_env.project / ".auger" / "agents" / "scout.md").write_text(
        "---\nname: scout\ndescription: Finds things.\nproject_context: maybe\n---\n\nBody.\n"
    )
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "hi", "--trust-project")
    assert proc.returncode == 0, proc.stderr
    assert "scout.md" in proc.stderr and "'project_context' is 'maybe'; write true or false" in proc.stderr
