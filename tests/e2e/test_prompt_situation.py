"""What the model is told (issue 36, item 7): the situation block (model, date, headless, approval
mode), the git-safety rule, the per-model suffix following `-m`/`/model`, the prompt's size in
both profiles, and `get_current_thread_id`. The real `auger` against the scripted server; every
assertion is on a request body the server received."""

from __future__ import annotations

import datetime
import json
from typing import Any

from conftest import AugerEnv

SMALL = '[providers.small]\nbase_url = "{url}"\nmodels = ["tiny"]\ncontext_window = 8192\n'


def _system(request: dict[str, Any]) -> str:
    if "system" in request:  # Anthropic's Messages API
        blocks = request["system"]
        return blocks if isinstance(blocks, str) else "".join(b.get("text", "") for b in blocks)
    texts = [m["content"] for m in request["messages"] if m["role"] == "system"]
    return "".join(t if isinstance(t, str) else "".join(b.get("text", "") for b in t) for t in texts)


def _size(request: dict[str, Any]) -> int:
    """System prompt + tool schemas, in characters (issue 36's figures)."""
    return len(_system(request)) + len(json.dumps(request["tools"]))


def test_headless_run_is_told_the_model_the_date_headless_and_the_git_rules(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "what is here?", "--mode", "auto-edit")
    assert proc.returncode == 0, proc.stderr
    system = _system(auger_env.llm.requests[0])
    situation = system[system.index("## Situation") :]
    assert "Model: scripted-model (provider: local)" in situation
    assert f"today: {datetime.date.today().isoformat()}" in situation
    assert "Headless: nobody will answer a question" in situation
    assert "approval mode: auto-edit" in situation and "sandbox: off" in situation
    words = " ".join(system.split())  # the rule as the model reads it, whatever the line breaks
    assert "never commit, push, force-push, rebase or `reset --hard` unless the user asks" in words
    assert "never revert changes you did not make" in words
    # the changing part comes after the stable one, before skills and memory
    assert (
        system.index("You are auger") < system.index("## Situation") < system.index("## Memory (AGENTS.md)")
    )
    assert "/large_tool_results/" not in json.dumps(auger_env.llm.requests[0]["tools"])


def test_a_model_switch_names_the_new_model_and_swaps_the_per_model_suffix(auger_env: AugerEnv) -> None:
    auger_env.env.update(
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{auger_env.llm.port}"
    )
    auger_env.write_config(model="anthropic:claude-sonnet-4-6")  # deepagents has a suffix for it
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    assert auger_env.run("-n", "first").returncode == 0
    proc = auger_env.run("-r", "-n", "second", "-m", "local:other-model")
    assert proc.returncode == 0, proc.stderr
    first, second = (_system(r) for r in auger_env.llm.requests)
    assert "Model: claude-sonnet-4-6 (provider: anthropic)" in first and "<tool_result_reflection>" in first
    assert "Model: other-model (provider: local)" in second
    assert "claude-sonnet-4-6" not in second and "<tool_result_reflection>" not in second


def test_default_and_compact_prompts_fit_their_budgets(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "full"}, {"text": "small"})
    assert auger_env.run("-n", "hi").returncode == 0
    auger_env.write_config(SMALL.format(url=auger_env.llm.base_url))
    assert auger_env.run("-n", "hi", "-m", "small:tiny").returncode == 0
    full, compact = auger_env.llm.requests
    assert _size(full) <= 20_000  # 25,185 before issue 36
    assert _size(compact) <= 6_000  # 7,492 before
    assert "## Situation" in _system(compact) and "reset --hard" in _system(compact)


def test_get_current_thread_id_returns_the_thread_id(auger_env: AugerEnv) -> None:
    call = {"name": "get_current_thread_id", "args": {}, "id": "call_t"}
    auger_env.llm.add({"tool_calls": [call]}, {"text": "noted"})
    proc = auger_env.run("-n", "which thread is this?", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    thread = json.loads(proc.stdout)["thread_id"]
    result = next(m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool")
    assert result["tool_call_id"] == "call_t" and result["content"] == thread
