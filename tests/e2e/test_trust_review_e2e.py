"""Review attacks on project trust: what an untrusted project's links and settings must not do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import AugerEnv


@pytest.mark.parametrize("name", ["AGENTS.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "docs/AGENTS.md"])
def test_an_untrusted_projects_memory_file_linking_to_the_users_key_is_not_read(
    auger_env: AugerEnv, tmp_path: Path, name: str
) -> None:
    key = tmp_path / ".ssh" / "id_rsa"  # tmp_path is $HOME for the run
    key.parent.mkdir()
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY----- very-secret-key-bytes\n")
    link = auger_env.project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(key)
    (auger_env.project / "docs").mkdir(exist_ok=True)
    auger_env.llm.add({"text": "ok"})
    cwd = auger_env.project / "docs" if name.startswith("docs/") else None
    proc = auger_env.run("-n", "hi", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert "very-secret-key-bytes" not in json.dumps(auger_env.llm.requests[-1])
    assert f"memory file {link}" in proc.stderr and "links outside the project" in proc.stderr
