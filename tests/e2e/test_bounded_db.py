"""Byte caps before the thread database: a prompt over the cap is refused, and a 10 MB MCP tool
result (FastMCP sends it twice, as text and as `structuredContent`) does not add 21 MB to threads.db."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import AugerEnv

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"


def test_a_10_mb_mcp_result_adds_far_less_to_the_thread_database(auger_env: AugerEnv) -> None:
    servers = {"calc": {"command": sys.executable, "args": [str(SERVER)]}}
    (auger_env.home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__calc__big", "args": {"size": 10_000_000}}]},
        {"text": "got it"},
    )
    proc = auger_env.run("-n", "fetch the big thing", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    db = auger_env.home / "threads.db"
    size = db.stat().st_size + sum(p.stat().st_size for p in db.parent.glob("threads.db-*"))
    assert size < 2_000_000  # 20 MB on main: the text and its structuredContent copy
    [message] = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "/~artifacts/large_tool_results/" in message and "0123456789abcdef" in message
    [saved] = (auger_env.home / "artifacts" / "large_tool_results").iterdir()
    assert saved.stat().st_size >= 10_000_000  # the whole text, on disk for read_file


def test_a_prompt_over_the_cap_is_refused_before_the_thread_database(auger_env: AugerEnv) -> None:
    prompt = "explain this log\n" + "x" * (5 * 1024 * 1024)
    proc = auger_env.run("-n", input=prompt)
    assert proc.returncode == 2
    assert "over the 4194304 byte limit" in proc.stderr and "Save it to a file" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not auger_env.llm.requests
    db = auger_env.home / "threads.db"
    assert not db.exists() or db.stat().st_size < 1_000_000
