"""End-to-end: a broken input file degrades, it does not stop the agent. A malformed or binary
`.mcp.json` / `mcp.json`, hooks file, skill, subagent or AGENTS.md gives ONE warning naming the
file (and the line, where there is one), that source is skipped, and `auger -n` runs its turn.
An untrusted project's files are read only as far as the trust decision needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
BINARY = bytes(range(256)) * 8  # NULs and bytes that are not UTF-8
GOOD_SERVER = {"command": sys.executable, "args": [str(SERVER)]}


def _run(env: AugerEnv, *args: str) -> tuple[str, dict[str, Any]]:
    """One headless turn that must succeed; (stderr, the first model request)."""
    env.llm.add({"text": "Still working."})
    proc = env.run("-n", "hello", *args)
    assert proc.returncode == 0 and proc.stdout.strip() == "Still working.", proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stderr, env.llm.requests[-1]


def _warnings_about(stderr: str, path: Path) -> list[str]:
    return [line for line in stderr.splitlines() if str(path) in line]


def _tools(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def _system(request: dict[str, Any]) -> str:
    return "\n".join(json.dumps(m["content"]) for m in request["messages"] if m["role"] == "system")


BROKEN_JSON = '{\n  "mcpServers": {\n    "calc": {"command": "python",}\n  }\n}\n'


@pytest.mark.parametrize("where", ["user", "project"])
@pytest.mark.parametrize("content", ["malformed", "binary"])
def test_a_broken_mcp_file_is_a_warning_and_the_agent_runs(
    auger_env: AugerEnv, where: str, content: str
) -> None:
    path = auger_env.home / "mcp.json" if where == "user" else auger_env.project / ".mcp.json"
    if content == "malformed":
        path.write_text(BROKEN_JSON)
    else:
        path.write_bytes(BINARY)
    stderr, _ = _run(auger_env, "--trust-project-mcp")
    [warning] = _warnings_about(stderr, path)
    assert warning.startswith("auger: ")
    if content == "malformed":
        assert f"{path}:3:" in warning  # file and line
    else:
        assert "not UTF-8" in warning


def test_a_bad_server_entry_skips_that_server_only(auger_env: AugerEnv) -> None:
    path = auger_env.home / "mcp.json"
    servers = {"calc": GOOD_SERVER, "nothing": {"args": ["x"]}, "weird": 42}
    path.write_text(json.dumps({"mcpServers": servers}))
    stderr, request = _run(auger_env)
    assert "mcp__calc__add" in _tools(request)  # the good server's tools are there
    warnings = _warnings_about(stderr, path)
    assert len(warnings) == 2, stderr
    assert any("'nothing'" in w for w in warnings) and any("'weird'" in w for w in warnings)


def test_an_untrusted_project_mcp_file_is_only_read_for_its_server_names(auger_env: AugerEnv) -> None:
    path = auger_env.project / ".mcp.json"
    servers = {"good": GOOD_SERVER, "odd": 42, "env": {"command": "${NOT_SET_ANYWHERE}"}}
    path.write_text(json.dumps({"mcpServers": servers}))
    stderr, request = _run(auger_env)
    assert "mcp__good__add" not in _tools(request)  # nothing started
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr  # the trust notice, no complaint about entries it did not parse
    assert "Not started: good, odd, env" in lines[0] and "--trust-project" in lines[0]
    trusted_stderr, request = _run(auger_env, "--trust-project-mcp")
    assert "mcp__good__add" in _tools(request)
    assert any("'odd'" in line for line in _warnings_about(trusted_stderr, path))
    assert any("NOT_SET_ANYWHERE" in line for line in trusted_stderr.splitlines())


@pytest.mark.parametrize("content", ["malformed", "binary"])
def test_a_broken_hooks_file_is_a_warning_and_the_agent_runs(auger_env: AugerEnv, content: str) -> None:
    path = auger_env.home / "hooks.json"
    if content == "malformed":
        path.write_text('{"hooks": {"PreToolUse": [\n  {"hooks": [}\n]}}\n')
    else:
        path.write_bytes(BINARY)
    stderr, _ = _run(auger_env)
    [warning] = _warnings_about(stderr, path)
    assert (f"{path}:2:" in warning) if content == "malformed" else ("not UTF-8" in warning)


def test_untrusted_project_hooks_are_not_parsed(auger_env: AugerEnv) -> None:
    path = auger_env.project / ".auger" / "hooks.json"
    path.parent.mkdir()
    path.write_bytes(BINARY)
    stderr, _ = _run(auger_env)
    [notice] = _warnings_about(stderr, path)
    assert "were not run" in notice and "auger trust" in notice  # the trust notice only
    assert "not UTF-8" not in stderr
    trusted, _ = _run(auger_env, "--trust-project-hooks")
    assert any("not UTF-8" in line for line in _warnings_about(trusted, path))


@pytest.mark.parametrize("kind", ["skill", "subagent"])
@pytest.mark.parametrize("content", ["malformed", "binary"])
def test_a_broken_skill_or_subagent_file_is_a_warning(auger_env: AugerEnv, kind: str, content: str) -> None:
    if kind == "skill":
        path = auger_env.project / ".auger" / "skills" / "broken" / "SKILL.md"
    else:
        path = auger_env.project / ".auger" / "agents" / "broken.md"
    path.parent.mkdir(parents=True)
    if content == "malformed":
        path.write_text("---\nname: broken\ndescription: [unclosed\n---\nBody.\n")
    else:
        path.write_bytes(b"---\n" + BINARY)
    stderr, _ = _run(auger_env)
    [warning] = _warnings_about(stderr, path)
    assert ("line 3" in warning) if content == "malformed" else ("not UTF-8" in warning)


def test_a_binary_agents_md_is_skipped_with_a_warning(auger_env: AugerEnv) -> None:
    path = auger_env.project / "AGENTS.md"
    path.write_bytes(b"# Notes\n" + BINARY)
    stderr, request = _run(auger_env)
    [warning] = _warnings_about(stderr, path)
    assert "binary" in warning and "skipped" in warning
    assert "# Notes" not in _system(request)


def test_a_huge_agents_md_is_capped_with_a_note(auger_env: AugerEnv) -> None:
    path = auger_env.project / "AGENTS.md"
    lines = [f"- rule {i:06d}: keep it tidy" for i in range(10_000)]  # ~300 KB
    path.write_text("# Rules\n" + "\n".join(lines) + "\nLAST LINE\n")
    stderr, request = _run(auger_env)
    [warning] = _warnings_about(stderr, path)
    assert "64 KB" in warning
    system = _system(request)
    assert "rule 000000" in system and "LAST LINE" not in system
    assert "only its first 64 KB" in system  # the model is told it has only part of it
