"""The compact prompt profile (issue 16, item 4): a model with a context window ≤ 16k tokens gets a
short system prompt and one-line tool descriptions, with the same tools, and the calls still run;
a model with a big window gets the full profile, also after `/model` on the same thread. The
real `auger` against the scripted server; token counts on a real llama.cpp are in
tests/e2e/test_llamacpp.py."""

from __future__ import annotations

import json
from typing import Any

from conftest import AugerEnv

SMALL = '[providers.small]\nbase_url = "{url}"\nmodels = ["tiny"]\ncontext_window = 8192\n'


def _names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]


def _size(request: dict[str, Any]) -> int:
    system = [m for m in request["messages"] if m["role"] == "system"]
    return len(json.dumps(system)) + len(json.dumps(request["tools"]))


def test_a_small_window_gets_the_compact_profile_with_the_same_tools(auger_env: AugerEnv) -> None:
    auger_env.write_config(SMALL.format(url=auger_env.llm.base_url))
    write = {"name": "write_file", "args": {"file_path": "/a.txt", "content": "made\n"}}
    auger_env.llm.add({"tool_calls": [write]}, {"text": "done"}, {"text": "full"})
    proc = auger_env.run("-n", "make a.txt", "-m", "small:tiny", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "a.txt").read_text() == "made\n"  # the original tool ran
    proc = auger_env.run("-r", "-n", "and now?", "-m", "local:scripted-model")
    assert proc.returncode == 0, proc.stderr
    compact, _, full = auger_env.llm.requests
    assert _names(compact) == _names(full)
    assert _size(compact) * 2.5 < _size(full)  # ~8k characters instead of ~25k
    assert _size(compact) < 9_000
    system = json.dumps([m for m in compact["messages"] if m["role"] == "system"])
    assert "You are auger" in system and "## `write_todos`" not in system
    assert "**commit**" in system and "<agent_memory>" in system  # skills and memory stay
    edit = next(t["function"] for t in compact["tools"] if t["function"]["name"] == "edit_file")
    assert set(edit["parameters"]["properties"]) == {"file_path", "old_string", "new_string", "replace_all"}
    assert "description" not in edit["parameters"]["properties"]["old_string"]
    task = next(t["function"] for t in compact["tools"] if t["function"]["name"] == "task")
    assert "general-purpose" in task["description"] and len(task["description"]) < 300
    assert "description" in task["parameters"]["properties"]  # a parameter named so is kept
