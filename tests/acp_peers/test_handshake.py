"""`initialize` is answered before anything heavy is imported, and what the client sent after it
reaches the real connection (bench/bench_acp.py measures the time: ≤ 150 ms after spawn)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import AUGER, AugerEnv

HEAVY = ("asyncio", "acp", "pydantic", "langchain_core", "deepagents", "auger.core.runtime", "auger.settings")


def test_the_handshake_path_imports_nothing_heavy() -> None:
    code = (
        "import sys, auger.cli.command, auger.cli.acp, auger.acp.handshake; "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_initialize_then_the_next_requests_in_one_write(auger_env: AugerEnv) -> None:
    first = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 7}}
    again = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    bogus = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": "x", "prompt": []},
    }
    stdin = "".join(json.dumps(m) + "\n" for m in (first, again, bogus))
    proc = auger_env.run("acp", input=stdin)
    assert proc.returncode == 0, proc.stderr
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    assert replies[0]["result"]["protocolVersion"] == 1  # the client's 7 is newer: auger's own
    assert replies[0]["result"]["agentCapabilities"]["loadSession"] is True
    assert replies[1]["result"]["agentInfo"]["name"] == "auger"  # answered by the ACP package
    assert "unknown session 'x'" in replies[2]["error"]["message"]
    assert "Traceback" not in proc.stderr


def test_a_client_that_starts_with_something_else_still_gets_answers(auger_env: AugerEnv) -> None:
    bogus = {"jsonrpc": "2.0", "id": 5, "method": "session/cancel_everything", "params": {}}
    init = {"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {"protocolVersion": 1}}
    stdin = "".join(json.dumps(m) + "\n" for m in (bogus, init))
    proc = subprocess.run(
        [AUGER, "acp"],
        input=stdin,
        capture_output=True,
        text=True,
        env=auger_env.env,
        cwd=auger_env.project,
        timeout=60,
    )
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    assert replies[5]["error"]["code"] == -32601  # method not found
    assert replies[6]["result"]["agentInfo"]["name"] == "auger"


def test_a_line_that_is_no_json_rpc_message_is_answered_and_the_agent_keeps_serving(
    auger_env: AugerEnv,
) -> None:
    """`[]` (an empty batch), `null` and `[1]` are JSON but no message: each gets JSON-RPC's
    Invalid Request error (id null) and the next request is served as usual."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    again = {**init, "id": 2}  # answered by the ACP package, after the handshake
    stdin = json.dumps(init) + "\n[]\nnull\n[1]\n" + json.dumps(again) + "\n"
    proc = auger_env.run("acp", input=stdin)
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [r["error"] for r in replies if r.get("id") is None]
    assert [e["code"] for e in errors] == [-32600] * 3 and "JSON object" in errors[0]["message"]
    [served] = [r for r in replies if r.get("id") == 2]
    assert served["result"]["agentInfo"]["name"] == "auger", served
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "no JSON-RPC message" in (auger_env.home / "logs" / "auger.log").read_text()


def test_lines_nested_too_deep_get_a_parse_error_and_the_agent_keeps_serving(auger_env: AugerEnv) -> None:
    """100,000 `[` (or `{"a":`) overflow Python's parser: before the handshake, after it, and
    inside a message object, each is answered with JSON-RPC's parse error; nothing stops."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    deep_array = "[" * 100_000 + "]" * 100_000
    deep_object = '{"jsonrpc": "2.0", "id": 9, "params": ' + '{"a":' * 100_000 + "1" + "}" * 100_001
    lines = [deep_array, json.dumps(init), deep_array, deep_object, json.dumps({**init, "id": 2})]
    proc = auger_env.run("acp", input="\n".join(lines) + "\n")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [r["error"] for r in replies if r.get("id") is None]
    assert [e["code"] for e in errors] == [-32700] * 3 and "more than 100 levels deep" in errors[0]["message"]
    assert [r["result"]["agentInfo"]["name"] for r in replies if r.get("id") in (1, 2)] == ["auger"] * 2
