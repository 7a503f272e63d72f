"""Cache-friendly prompts: the system prompt and the tool list a provider receives do not change
with git status or files, so a server's prefix cache survives (issue 16, item 3). The real `auger`
against the scripted server; what is compared is the request bodies it logged."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from conftest import AugerEnv


def _git(env: AugerEnv, *args: str) -> None:
    subprocess.run(["git", "-C", str(env.project), *args], check=True, capture_output=True)


def _repo(env: AugerEnv) -> None:
    _git(env, "init", "-q", "-b", "main")
    _git(env, "config", "user.email", "t@example.com")
    _git(env, "config", "user.name", "T")
    (env.project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    _git(env, "add", "-A")
    _git(env, "commit", "-q", "-m", "first")


def _prefix(request: dict[str, Any]) -> tuple[str, str]:
    """The part a prefix cache keys on before the conversation: system messages and tools."""
    system = [m for m in request["messages"] if m["role"] == "system"]
    return json.dumps(system), json.dumps(request.get("tools"))


def test_new_sessions_with_a_file_change_between_send_the_same_system_prompt_and_tools(
    auger_env: AugerEnv,
) -> None:
    _repo(auger_env)
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    assert auger_env.run("-n", "what is here?").returncode == 0
    (auger_env.project / "notes.txt").write_text("new\n")  # one untracked file
    (auger_env.project / "pyproject.toml").write_text("[project]\nname = 'changed'\n")  # one changed
    assert auger_env.run("-n", "what is here?").returncode == 0
    first, second = auger_env.llm.requests
    assert _prefix(first) == _prefix(second)
    assert first["tools"] and "untracked" not in _prefix(first)[0]
    # the facts still reach the model, fresh, right after the stable prefix
    note_1, note_2 = (json.dumps(r["messages"][1]) for r in (first, second))
    assert "0 changed, 0 untracked" in note_1 and "1 changed, 1 untracked" in note_2
    assert "notes.txt" in note_2 and "what is here?" in note_2


def test_the_next_turn_of_a_thread_resends_the_same_prefix_after_a_file_change(auger_env: AugerEnv) -> None:
    _repo(auger_env)
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    assert auger_env.run("-n", "first question").returncode == 0
    (auger_env.project / "notes.txt").write_text("new\n")
    assert auger_env.run("-r", "-n", "second question").returncode == 0
    first, second = auger_env.llm.requests
    assert _prefix(first) == _prefix(second)
    # everything the first request sent is the start of the second, byte for byte
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert "notes.txt" not in json.dumps(second["messages"])  # the thread's facts are kept


def test_anthropic_requests_put_cache_breakpoints_on_the_stable_prefix(auger_env: AugerEnv) -> None:
    _repo(auger_env)
    auger_env.env.update(
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{auger_env.llm.port}"
    )
    auger_env.write_config(model="anthropic:claude-sonnet-4-5")
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    assert auger_env.run("-n", "what is here?").returncode == 0
    (auger_env.project / "notes.txt").write_text("new\n")
    assert auger_env.run("-n", "what is here?").returncode == 0
    first, second = auger_env.llm.requests
    assert (first["system"], first["tools"]) == (second["system"], second["tools"])
    # breakpoints: the last tool, the system prompt (after the skills, after memory), the message tail
    assert "cache_control" in first["tools"][-1] and first["cache_control"]["type"] == "ephemeral"
    marked = [block for block in first["system"] if "cache_control" in block]
    assert len(marked) == 2 and "cache_control" in first["system"][-1]
    assert "untracked" not in json.dumps(first["system"])
    assert "1 untracked" in json.dumps(second["messages"][0])
