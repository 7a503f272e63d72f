"""Memory as users lay it out, end to end (the installed `auger -n` against the scripted server):
a subfolder's AGENTS.md joins when the agent works there (once), the folders down to where auger
was started are in the prompt, imports reach the model, and `/init` asks for an AGENTS.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def tool_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_a_subfolders_memory_joins_when_the_agent_works_there(auger_env: AugerEnv) -> None:
    (auger_env.project / ".git").mkdir()
    write(auger_env.project / "AGENTS.md", "ROOT-RULE")
    write(auger_env.project / "packages" / "api" / "AGENTS.md", "API-RULE: use httpx, never requests")
    write(auger_env.project / "packages" / "api" / "app.py", "print('hi')\n")
    auger_env.llm.add(
        call("read_file", file_path="/packages/api/app.py"),
        call("read_file", file_path="/packages/api/app.py"),
        "done",
    )
    proc = auger_env.run("-n", "look at the api", *STREAM)
    assert proc.returncode == 0, proc.stderr
    first = auger_env.llm.requests[0]
    assert "ROOT-RULE" in json.dumps(first["messages"]) and "API-RULE" not in json.dumps(first["messages"])
    texts = tool_texts(auger_env.llm.requests[-1])
    assert "API-RULE: use httpx" in texts[0] and "print('hi')" in texts[0]
    assert "API-RULE" not in texts[1]  # once per thread


def test_started_in_a_subfolder_its_memory_and_imports_are_in_the_prompt(auger_env: AugerEnv) -> None:
    (auger_env.project / ".git").mkdir()
    write(auger_env.project / "CLAUDE.md", "Conventions: @docs/conventions.md")
    write(auger_env.project / "docs" / "conventions.md", "CONVENTION-42")
    write(auger_env.project / "CLAUDE.local.md", "LOCAL-NOTE")
    write(auger_env.project / "svc" / "AGENTS.md", "SVC-RULE")
    write(auger_env.project / "svc" / "x.txt", "")
    auger_env.llm.add("ok")
    proc = auger_env.run("-n", "hi", cwd=auger_env.project / "svc")
    assert proc.returncode == 0, proc.stderr
    system = json.dumps(auger_env.llm.requests[0]["messages"][0])
    for text in ("CONVENTION-42", "LOCAL-NOTE", "SVC-RULE"):
        assert text in system, text


def test_a_missing_import_is_a_warning_and_the_turn_runs(auger_env: AugerEnv) -> None:
    write(auger_env.project / "AGENTS.md", "see @docs/gone.md")
    auger_env.llm.add("ok")
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "@docs/gone.md not found" in proc.stderr and "Traceback" not in proc.stderr


def test_init_asks_the_model_to_write_agents_md(auger_env: AugerEnv) -> None:
    write(auger_env.project / "pyproject.toml", "[project]\nname = 'demo'\n")
    auger_env.llm.add(
        call("write_file", file_path="/AGENTS.md", content="# demo\n\nRun `pytest`.\n"), "wrote it"
    )
    proc = auger_env.run("-n", "/init", "--mode", "auto-edit")
    assert proc.returncode == 0, proc.stderr
    prompt = [m for m in auger_env.llm.requests[0]["messages"] if m["role"] == "user"][-1]
    assert "Write the project's AGENTS.md" in str(prompt["content"])
    assert (auger_env.project / "AGENTS.md").read_text().startswith("# demo")
