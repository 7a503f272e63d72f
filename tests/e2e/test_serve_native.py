"""End-to-end: the native endpoints of `auger serve` (threads, runs as IR events over SSE, approvals,
cancel, model/mode) and RemoteSession driving turns through them, all against a real server in a
subprocess and the scripted LLM."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from auger.core import events as ev
from auger.core.port import TurnOptions
from auger.errors import ThreadError, UsageError
from auger.remote.client import RemoteError, RemoteSession
from conftest import AugerEnv
from serve_harness import Server, StreamingRun, hang_served, sse_payloads, start_server, wait_until

MANUAL = TurnOptions("manual")
WRITE = {
    "tool_calls": [{"name": "write_file", "id": "call_1", "args": {"file_path": "/n.txt", "content": "N\n"}}]
}


@pytest.fixture
def server(auger_env: AugerEnv) -> Iterator[Server]:
    srv = start_server(auger_env, "--mode", "manual")
    yield srv
    assert srv.stop() == 0


def test_thread_lifecycle_and_a_run_as_ir_events(server: Server) -> None:
    server.env.llm.add({"text": "First answer."})
    tid = server.new_thread(thread_id="native-1", model="local:scripted-model")
    events = server.run(tid, "hello there")
    assert events[0]["type"] == "turn_started" and events[-1]["type"] == "turn_ended"
    assert events[-1] == {"type": "turn_ended", "reason": "done", "thread_id": tid, "text": "First answer."}
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "First answer."
    with server.client() as c:
        info = c.get(f"/threads/{tid[:6]}").json()  # a unique prefix works like `auger -r`
        assert info["id"] == tid and info["title"] == "hello there" and info["busy"] is False
        assert info["message_count"] == 2 and info["context_tokens"] > 0
        assert [t["id"] for t in c.get("/threads").json()["threads"]] == [tid]
        assert c.get("/threads", params={"search": "answer"}).json()["threads"][0]["id"] == tid
        msgs = c.get(f"/threads/{tid}/messages").json()["messages"]
        assert [(m["type"], m["data"]["content"]) for m in msgs] == [
            ("human", "hello there"),
            ("ai", "First answer."),
        ]
        assert c.patch(f"/threads/{tid}", json={"title": "Renamed"}).json()["title"] == "Renamed"
        fork = c.post(f"/threads/{tid}/fork", json={})
        assert fork.status_code == 201 and fork.json()["parent_id"] == tid
        assert c.post("/threads", json={"thread_id": tid}).status_code == 409
        assert c.post(f"/threads/{tid}/model", json={"model": "local:other-model"}).json()["model"] == (
            "local:other-model"
        )
        assert c.post(f"/threads/{tid}/mode", json={"mode": "yolo"}).json()["mode"] == "yolo"
    server.env.llm.add({"text": "Second answer."})
    server.run(tid, "again")
    assert server.env.llm.requests[-1]["model"] == "other-model"
    with server.client() as c:
        assert c.delete(f"/threads/{tid}").json() == {"deleted": True}
        assert c.get(f"/threads/{tid}").status_code == 404
    listed = json.loads(server.env.run("threads", "list", "--json").stdout)
    assert [row["id"] for row in listed] == [fork.json()["id"]]


def test_manual_approval_over_http_then_the_run_continues(server: Server) -> None:
    server.env.llm.add(WRITE, {"text": "Done writing."})
    tid = server.new_thread()
    run = StreamingRun(server, tid, "write n.txt")
    asked = run.until("approval_requested")
    assert asked["name"] == "write_file" and asked["args"]["file_path"] == "/n.txt"
    assert not (server.env.project / "n.txt").exists()
    with server.client() as c:
        assert c.get(f"/threads/{tid}").json()["busy"] is True
        resp = c.post(
            f"/threads/{tid}/approvals", json={"request_id": asked["request_id"], "decision": "approve"}
        )
        assert resp.status_code == 200, resp.text
    rest = run.rest()
    finished = [e for e in rest if e["type"] == "tool_call_finished"]
    assert finished and finished[0]["status"] == "success"
    assert rest[-1]["type"] == "turn_ended" and rest[-1]["reason"] == "done"
    assert (server.env.project / "n.txt").read_text() == "N\n"


def test_reject_with_a_message_reaches_the_model(server: Server) -> None:
    server.env.llm.add(WRITE, {"text": "OK, I will not."})
    tid = server.new_thread()
    run = StreamingRun(server, tid, "write n.txt")
    asked = run.until("approval_requested")
    with server.client() as c:
        body = {"request_id": asked["request_id"], "decision": "reject", "message": "use notes.md instead"}
        assert c.post(f"/threads/{tid}/approvals", json=body).status_code == 200
    rest = run.rest()
    assert rest[-1]["reason"] == "done"
    tool_msgs = [m for m in server.env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "use notes.md instead" in str(tool_msgs[0]["content"])
    assert not (server.env.project / "n.txt").exists()


def test_cancel_a_hanging_run_and_busy_thread_409(server: Server) -> None:
    server.env.llm.add({"hang": True})
    tid = server.new_thread()
    run = StreamingRun(server, tid, "this will hang")
    run.until("turn_started")
    wait_until(hang_served(server.env), what="the model call")
    with server.client() as c:
        second = c.post(f"/threads/{tid}/runs", json={"prompt": "me too"})
        assert second.status_code == 409 and "busy" in second.json()["error"]
        assert c.delete(f"/threads/{tid}").status_code == 409
        assert c.post(f"/threads/{tid}/cancel").json() == {"cancelled": True}
    rest = run.rest()
    assert rest[-1]["type"] == "turn_ended" and rest[-1]["reason"] == "cancelled"
    with server.client() as c:
        assert c.post(f"/threads/{tid}/cancel").json() == {"cancelled": False}
    server.env.llm.add({"text": "Back again."})
    assert server.run(tid, "are you there?")[-1]["reason"] == "done"  # the thread is free again


def test_client_disconnect_cancels_the_turn(server: Server) -> None:
    server.env.llm.add({"hang": True})
    tid = server.new_thread()
    with server.client() as c, c.stream("POST", f"/threads/{tid}/runs", json={"prompt": "hang"}) as r:
        payloads = sse_payloads(r.iter_lines())  # kept referenced: the stream stays open
        assert json.loads(next(payloads))["type"] == "turn_started"
        wait_until(hang_served(server.env), what="the model call")
    # the stream is closed: the server cancels the turn and frees the thread
    server.env.llm.add({"text": "Free."})
    with server.client() as c:
        wait_until(lambda: not c.get(f"/threads/{tid}").json()["busy"], what="the thread to be free")
    assert server.run(tid, "again")[-1]["reason"] == "done"


# -- RemoteSession ---------------------------------------------------------------------------------


async def test_remote_session_drives_turns_end_to_end(server: Server) -> None:
    server.env.llm.add(
        {"text": "Remote hello."}, WRITE, {"text": "Wrote it remotely."}, {"text": "Other model."}
    )
    session = await RemoteSession.connect(server.url, server.token)
    try:
        assert session.thread_id and session.model_spec == "local:scripted-model"
        assert session.default_mode == "manual"
        events = [e async for e in session.send("hi remote", MANUAL)]
        assert isinstance(events[0], ev.TurnStarted) and isinstance(events[-1], ev.TurnEnded)
        assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == "Remote hello."
        assert session.context_tokens > 0 and not session.busy

        seen: list[ev.Event] = []
        async for event in session.send("write n.txt", MANUAL):
            seen.append(event)
            if isinstance(event, ev.ApprovalRequested):
                assert session.busy and event.name == "write_file"
                event.respond(ev.ApprovalDecision("approve_always"))  # as the TUI's approval widget does
        assert any(isinstance(e, ev.ToolCallFinished) and e.status == "success" for e in seen)
        assert seen[-1] == ev.TurnEnded("done", session.thread_id, "Wrote it remotely.")
        asked = next(e for e in seen if isinstance(e, ev.ApprovalRequested))
        assert asked.suggested_rule == "write_file(n.txt)"
        assert (server.env.project / "n.txt").read_text() == "N\n"

        history = await session.history()  # the saved turns, as the events the live turns sent
        assert [type(e).__name__ for e in history][:3] == ["TurnStarted", "TextDelta", "TurnEnded"]
        assert [e.prompt for e in history if isinstance(e, ev.TurnStarted)] == ["hi remote", "write n.txt"]
        assert await session.set_model("local:other-model") == "local:other-model"
        [e async for e in session.send("switch", MANUAL)]
        assert server.env.llm.requests[-1]["model"] == "other-model"
        server.env.llm.add({"text": "REMOTE SUMMARY"})
        done = await session.compact("keep n.txt")  # what the TUI's /compact calls
        assert done is not None and done.summary == "REMOTE SUMMARY" and done.summarized == 8
        assert (
            session.context_tokens == done.tokens_after
            and server.env.llm.requests[-1]["model"] == "other-model"
        )

        first = session.thread_id
        await session.open_thread(None)
        assert session.thread_id != first and session.context_tokens == 0
        await session.open_thread(first)
        assert session.thread_id == first and session.model_spec == "local:other-model"
        info = await session.thread_info()
        assert info is not None and info.title == "hi remote" and info.context_window
        assert first in [t.id for t in await session.list_threads()]
        with pytest.raises(ThreadError):
            await session.open_thread("no-such-thread")
    finally:
        await session.aclose()


async def test_remote_session_cancel_and_busy(server: Server) -> None:
    server.env.llm.add({"hang": True})
    session = await RemoteSession.connect(server.url, server.token)
    try:
        events: list[ev.Event] = []
        async for event in session.send("hang please", MANUAL):
            events.append(event)
            if isinstance(event, ev.TurnStarted):
                with pytest.raises(UsageError):
                    async for _ in session.send("second", MANUAL):
                        pass
                served = hang_served(server.env)
                while not served():
                    await asyncio.sleep(0.02)
                session.cancel()
        assert isinstance(events[-1], ev.TurnEnded) and events[-1].reason == "cancelled"
    finally:
        await session.aclose()


async def test_remote_session_refuses_bad_token_and_unreachable_server(server: Server) -> None:
    with pytest.raises(RemoteError, match="refused the token"):
        await RemoteSession.connect(server.url, "wrong")
    with pytest.raises(RemoteError, match="Cannot reach"):
        await RemoteSession.connect("http://127.0.0.1:9", server.token)


def test_connect_headless_cli_runs_on_the_server(server: Server) -> None:
    server.env.llm.add({"text": "Answered by the server."})
    proc = server.env.run(
        "--connect", server.url, "--token", server.token, "-n", "hello", "--output-format", "stream-json"
    )
    assert proc.returncode == 0, proc.stderr
    events = server.env.events(proc)
    assert events[-1]["type"] == "turn_ended" and events[-1]["text"] == "Answered by the server."
    bad = server.env.run("--connect", server.url, "--token", "nope", "-n", "hello")
    assert bad.returncode == 1 and "refused the token" in bad.stderr


def test_compact_a_thread_over_http(server: Server) -> None:
    server.env.llm.add(
        {"text": "The answer is 42."}, {"text": "SUMMARY: the answer is 42."}, {"text": "still 42"}
    )
    tid = server.new_thread()
    with server.client() as c:
        empty = c.post(f"/threads/{tid}/compact")
        assert empty.status_code == 200 and empty.json()["compacted"] is False
    assert server.run(tid, "what is the answer?")[-1]["reason"] == "done"
    with server.client() as c:
        bad = c.post(f"/threads/{tid}/compact", json={"instructions": 7})
        assert bad.status_code == 400 and "instructions" in bad.json()["error"]
        done = c.post(f"/threads/{tid}/compact", json={"instructions": "keep numbers"}).json()
    assert done["compacted"] and done["summarized"] == 2 and done["summary"] == "SUMMARY: the answer is 42."
    assert "keep numbers" in str(server.env.llm.requests[-1]["messages"][0]["content"])
    assert server.run(tid, "and now?")[-1]["reason"] == "done"
    users = [m["content"] for m in server.env.llm.requests[-1]["messages"] if m["role"] == "user"]
    assert "SUMMARY: the answer is 42." in str(users[0]) and users[-1] == "and now?" and len(users) == 2
