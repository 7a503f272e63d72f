"""End-to-end: `auger serve` in a subprocess on 127.0.0.1 against the scripted LLM server — auth, the
Vercel AI SDK UI-message stream (text and tool calls), stateless vs thread chats, and malformed
requests. Native runs, approvals, cancel and RemoteSession are in test_serve_native.py."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator

import pytest

from conftest import AUGER, AugerEnv
from conftest_llm import typed
from serve_harness import TOKEN, Server, start_server


@pytest.fixture
def server(auger_env: AugerEnv) -> Iterator[Server]:
    srv = start_server(auger_env, "--mode", "yolo")
    yield srv
    assert srv.stop() == 0


def _user(text: str) -> dict[str, object]:
    return {"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}


def _text(parts: list[object]) -> str:
    return "".join(p["delta"] for p in parts if isinstance(p, dict) and p["type"] == "text-delta")


def _types(parts: list[object]) -> list[str]:
    return [p if isinstance(p, str) else p["type"] for p in parts]  # type: ignore[index]


# -- auth ----------------------------------------------------------------------------------------


def test_token_required_everywhere_but_health(server: Server) -> None:
    with server.client(token="") as anon:
        assert anon.get("/health").json() == {"status": "ok"}
        for method, path in [("GET", "/version"), ("GET", "/threads"), ("POST", "/chat/stream")]:
            resp = anon.request(method, path, json={})
            assert resp.status_code == 401 and "Authorization: Bearer" in resp.json()["error"]
    with server.client(token="wrong-token") as bad:
        resp = bad.post("/chat/stream", json={"messages": [_user("hi")]})
        assert resp.status_code == 401 and resp.json() == {"error": "Invalid token."}
    with server.client(headers={"Authorization": f"Basic {TOKEN}"}, token="") as basic:
        assert basic.get("/version").status_code == 401
    with server.client() as ok:
        assert ok.get("/version").json()["version"]
        spec = ok.get("/openapi.json").json()
        assert {"/chat/stream", "/threads/{thread_id}/runs", "/threads/{thread_id}/approvals"} <= set(
            spec["paths"]
        )
    assert server.env.llm.requests == []  # nothing reached the agent


def test_generated_token_is_printed_and_required(auger_env: AugerEnv) -> None:
    srv = start_server(auger_env, token=None)
    try:
        assert len(srv.token) >= 32
        with srv.client(token="") as anon:
            assert anon.get("/version").status_code == 401
        with srv.client() as c:
            assert c.get("/version").status_code == 200
    finally:
        assert srv.stop() == 0


def test_non_loopback_host_needs_an_explicit_token(auger_env: AugerEnv) -> None:
    proc = auger_env.run("serve", "--host", "0.0.0.0", "--port", "0", timeout=30)
    assert proc.returncode == 2
    assert "not loopback" in proc.stderr and "--token" in proc.stderr
    assert proc.stdout == ""


# -- the Vercel AI SDK data stream -------------------------------------------------------------------


def test_chat_stream_text_reply_part_sequence(server: Server) -> None:
    server.env.llm.add({"text": "Hello from auger, streamed."})
    resp, parts = server.chat({"messages": [_user("say hello")]})
    assert resp.status_code == 200
    assert resp.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert resp.headers["content-type"].startswith("text/event-stream")
    types = _types(parts)
    deltas = types.count("text-delta")
    assert deltas > 1  # really streamed, not sent whole
    assert types == [
        "start",
        "start-step",
        "text-start",
        *["text-delta"] * deltas,
        "text-end",
        "finish-step",
        "finish",
        "[DONE]",
    ]
    block = parts[2]["id"]
    assert all(p["id"] == block for p in parts[2:-3])
    assert _text(parts) == "Hello from auger, streamed."
    assert parts[0]["messageId"] and parts[-2]["messageMetadata"]["reason"] == "done"
    assert parts[-2]["messageMetadata"]["usage"]["totalTokens"] > 0


def test_chat_stream_tool_call_part_sequence(server: Server) -> None:
    server.env.llm.add(
        {
            "tool_calls": [
                {"name": "write_file", "id": "call_w1", "args": {"file_path": "/a.txt", "content": "A\n"}}
            ]
        },
        {"text": "Wrote a.txt."},
    )
    _, parts = server.chat({"messages": [_user("write a.txt")]})
    types = _types(parts)
    assert types == [
        "start",
        "start-step",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "start-step",
        "text-start",
        *["text-delta"] * types.count("text-delta"),
        "text-end",
        "finish-step",
        "finish",
        "[DONE]",
    ]
    start, delta, available, output = parts[2:6]
    assert start == {"type": "tool-input-start", "toolCallId": "call_w1", "toolName": "write_file"}
    assert json.loads(delta["inputTextDelta"]) == {"file_path": "/a.txt", "content": "A\n"}
    assert (
        available["input"] == {"file_path": "/a.txt", "content": "A\n"}
        and available["toolName"] == "write_file"
    )
    assert output["toolCallId"] == "call_w1" and isinstance(output["output"], str)
    assert (server.env.project / "a.txt").read_text() == "A\n"


def test_chat_approvals_follow_the_server_mode(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {
            "tool_calls": [
                {"name": "write_file", "id": "call_m", "args": {"file_path": "/m.txt", "content": "x"}}
            ]
        },
        {"text": "I was not allowed to write."},
    )
    srv = start_server(auger_env, "--mode", "manual")
    try:
        _, parts = srv.chat({"messages": [_user("write m.txt")]})
    finally:
        srv.stop()
    refused = [p for p in parts if p != "[DONE]" and p["type"] == "tool-output-error"]
    assert refused and refused[0]["toolCallId"] == "call_m" and "manual" in refused[0]["errorText"]
    said = str(auger_env.llm.requests[-1]["messages"])
    assert "start auger serve with --mode auto-edit" in said and "headless" not in said
    assert not (auger_env.project / "m.txt").exists()
    assert _types(parts)[-2:] == ["finish", "[DONE]"]


def test_a_plan_in_a_plan_mode_chat_ends_the_reply_with_nothing_changed(auger_env: AugerEnv) -> None:
    plan = "# Plan\n\n1. Write m.txt."
    auger_env.llm.add(
        {"tool_calls": [{"name": "present_plan", "id": "call_p", "args": {"plan": plan}}]},
        {"text": "never asked for"},
    )
    srv = start_server(auger_env, "--mode", "plan")
    try:
        _, parts = srv.chat({"messages": [_user("plan m.txt")]})
    finally:
        srv.stop()
    [shown] = [p for p in parts if p != "[DONE]" and p["type"] == "tool-input-available"]
    assert shown["toolName"] == "present_plan" and shown["input"] == {"plan": plan}
    assert len(auger_env.llm.requests) == 1  # nobody accepts a plan on the chat stream: it ends there
    assert _types(parts)[-2:] == ["finish", "[DONE]"]
    assert list(auger_env.project.iterdir()) == []


def test_stateless_chat_sends_history_and_leaves_no_thread(server: Server) -> None:
    server.env.llm.add({"text": "Your name is Bob."})
    history = [
        _user("my name is Bob"),
        {"role": "assistant", "parts": [{"type": "text", "text": "Hi Bob!"}]},
        {"role": "user", "content": "what is my name?"},  # the older `content` form works too
    ]
    _, parts = server.chat({"messages": history})
    assert parts[0]["messageMetadata"]["threadId"] is None
    sent = [
        (m["role"], typed(m["content"]) if m["role"] == "user" else m["content"])
        for m in server.env.llm.requests[-1]["messages"]
        if m["role"] != "system"
    ]
    assert sent == [("user", "my name is Bob"), ("assistant", "Hi Bob!"), ("user", "what is my name?")]
    with server.client() as c:
        assert c.get("/threads", params={"all": "true"}).json()["threads"] == []
    db = sqlite3.connect(server.env.home / "threads.db")
    assert db.execute("select count(*) from checkpoints").fetchone()[0] == 0


def test_chat_with_thread_id_continues_the_thread(server: Server) -> None:
    server.env.llm.add({"text": "Noted: blue."}, {"text": "You said blue."})
    _, first = server.chat({"messages": [_user("my colour is blue")], "thread_id": "web-chat-1"})
    assert first[0]["messageMetadata"]["threadId"] == "web-chat-1"
    # the client sends only the new message; the thread remembers the rest
    _, second = server.chat({"messages": [_user("what colour?")], "thread_id": "web-chat-1"})
    assert _types(second)[-2:] == ["finish", "[DONE]"]
    users = [typed(m["content"]) for m in server.env.llm.requests[-1]["messages"] if m["role"] == "user"]
    assert users == ["my colour is blue", "what colour?"]
    listed = server.env.run("threads", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows["web-chat-1"]["title"].startswith("my colour is blue")


def test_chat_model_switch_per_request(server: Server) -> None:
    server.env.llm.add({"text": "from the other model"})
    _, parts = server.chat({"messages": [_user("hi")], "model": "local:other-model"})
    assert _types(parts)[-2:] == ["finish", "[DONE]"]
    assert server.env.llm.requests[-1]["model"] == "other-model"


# -- validation ------------------------------------------------------------------------------------


def test_malformed_requests_get_clear_4xx_and_the_server_keeps_serving(server: Server) -> None:
    cases = [
        ("POST", "/chat/stream", b"{not json", 400, "not valid JSON"),
        ("POST", "/chat/stream", b"[1, 2]", 400, "must be a JSON object"),
        ("POST", "/chat/stream", b"", 400, "empty"),
        ("POST", "/chat/stream", json.dumps({"messages": "hi"}).encode(), 400, "'messages' must be an array"),
        ("POST", "/chat/stream", json.dumps({"messages": []}).encode(), 400, "at least one user message"),
        ("POST", "/chat/stream", json.dumps({"messages": [{"role": "robot"}]}).encode(), 400, "role"),
        (
            "POST",
            "/chat/stream",
            json.dumps({"messages": [_user("x")], "model": "nope:thing"}).encode(),
            400,
            "Unknown provider",
        ),
        (
            "POST",
            "/chat/stream",
            json.dumps({"messages": [_user("x")], "thread_id": "a b"}).encode(),
            400,
            "thread id",
        ),
        ("POST", "/threads/nope/runs", json.dumps({"prompt": "hi"}).encode(), 404, "Unknown thread"),
        ("GET", "/threads/nope", None, 404, "Unknown thread"),
        ("POST", "/threads", json.dumps({"mode": "reckless"}).encode(), 400, "Unknown mode"),
        ("GET", "/threads?limit=zero", None, 400, "limit"),
        ("POST", "/chat/stream", b'{"messages": "' + b"x" * (2 << 20) + b'"}', 413, "limit"),
        ("POST", "/chat/stream", b"[" * 100_000 + b"]" * 100_000, 400, "more than 100 levels deep"),
        ("POST", "/threads", b'{"mode": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001, 400, "levels deep"),
        ("GET", "/no/such/endpoint", None, 404, "No endpoint"),
        ("PUT", "/chat/stream", b"{}", 405, "not allowed"),
    ]
    with server.client() as c:
        for method, path, body, status, words in cases:
            resp = c.request(method, path, content=body, headers={"content-type": "application/json"})
            assert resp.status_code == status, (path, body and body[:60], resp.text)
            assert words in resp.json()["error"], (path, resp.json())
        tid = server.new_thread()
        for body, words in [
            ({}, "Missing field 'prompt'"),
            ({"prompt": 3}, "'prompt' must be a string, not a number"),
            ({"prompt": "  "}, "empty"),
            ({"prompt": "hi", "mentions": "yes"}, "'mentions' must be true or false, not a string"),
            ({"prompt": "hi", "mentions": 1}, "'mentions' must be true or false, not a number"),
        ]:
            resp = c.post(f"/threads/{tid}/runs", json=body)
            assert resp.status_code == 400 and words in resp.json()["error"]
        bad = c.post(f"/threads/{tid}/approvals", json={"request_id": "r1", "decision": "maybe"})
        assert bad.status_code == 400 and "decision" in bad.json()["error"]
        missing = c.post(f"/threads/{tid}/approvals", json={"request_id": "r1", "decision": "approve"})
        assert missing.status_code == 404 and "No pending approval" in missing.json()["error"]
        assert c.get("/health").status_code == 200
    server.env.llm.add({"text": "still here"})
    _, parts = server.chat({"messages": [_user("still serving?")]})
    assert _text(parts) == "still here"


def test_serve_help_and_bad_port(auger_env: AugerEnv) -> None:
    proc = subprocess.run(
        [AUGER, "serve", "--help"], capture_output=True, text=True, env=auger_env.env, timeout=30
    )
    assert proc.returncode == 0 and "--token" in proc.stdout and "--mode" in proc.stdout
    srv = start_server(auger_env)
    try:
        port = srv.url.rsplit(":", 1)[1]
        clash = auger_env.run("serve", "--port", port, "--token", "x" * 12, timeout=60)
        assert clash.returncode == 2 and "Cannot listen" in clash.stderr
    finally:
        srv.stop()
