"""End-to-end: credentials by their shape, echoed back by a real MCP server (text and
`structuredContent`) and the server's own configured `env` secret, are in neither the thread DB
(its raw bytes, WAL included) nor the next model request."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import AugerEnv

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"
SECRETS = {
    "pem": f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
    "aws": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "slack": "xoxb-2194837261-5093817263-AbCdEfGhIjKlMnOpQrStUvWx",
    "github": "ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234",
}
SERVER_TOKEN = "srv-9f8e7d6c5b4a3210fedc"
# the part of each that must not be kept anywhere
LEAKS = [
    PEM_BODY,
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "4eC39HqLyjWDarjtT1zdp7dc",
    "AbCdEfGhIjKlMnOpQrStUvWx",
    "R2d2C3poR2d2C3poR2d2C3po",
    SERVER_TOKEN,
]


def test_credential_shapes_and_server_env_never_stored_or_sent(auger_env: AugerEnv) -> None:
    auger_env.write_config(
        f'[mcp.servers.vault]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f'[mcp.servers.vault.env]\nVAULT_TOKEN = "{SERVER_TOKEN}"\n'
    )
    blob = "\n".join(SECRETS.values())
    auger_env.llm.add(
        {"tool_calls": [{"name": "mcp__vault__echo", "args": {"text": blob}}]},
        {"tool_calls": [{"name": "mcp__vault__echo_json", "args": {"text": blob}}]},
        {"tool_calls": [{"name": "mcp__vault__getenv", "args": {"name": "VAULT_TOKEN"}}]},
        {"text": "done"},
    )
    proc = auger_env.run("-n", "show me", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert [e["status"] for e in finished] == ["success"] * 3, finished
    last = json.dumps(auger_env.llm.requests[-1]["messages"])
    stored = b"".join(p.read_bytes() for p in auger_env.home.glob("threads.db*"))
    assert stored
    kept = {
        where: [s for s in LEAKS if s.encode() in data]
        for where, data in (("request", last.encode()), ("db", stored), ("stdout", proc.stdout.encode()))
    }
    assert kept == {"request": [], "db": [], "stdout": []}
    assert "[redacted:$VAULT_TOKEN]" in last and "BEGIN RSA PRIVATE KEY" in last
