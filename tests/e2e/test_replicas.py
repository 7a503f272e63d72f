"""End-to-end: two real `auger serve` replicas (each with its own AUGER_HOME, as on two machines)
on one real PostgreSQL database. Any replica continues any thread, and knows a thread the other
made at once; a thread runs on one replica at a time (the writer lease in the database, taken
before the run's stream starts): a run for a busy thread gets 409 naming the holder, also when
runs race on both replicas, and no turn is lost; an approval is answered on the replica running
the turn (the other answers 409 saying so); a replica killed mid-turn leaves the thread to the
other at once."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import AugerEnv
from conftest_llm import typed
from serve_harness import (
    Gate,
    Server,
    StreamingRun,
    hang_served,
    served,
    sse_payloads,
    start_server,
    wait_until,
)

WRITE = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/n.txt", "content": "N\n"}}]}


def _users(request: dict[str, Any]) -> list[str]:
    return [typed(m["content"]) for m in request["messages"] if m["role"] == "user"]


def _second_home(env: AugerEnv) -> AugerEnv:
    """Another machine's auger: its own AUGER_HOME (same config), the same database and project."""
    home = env.home.parent / "home-b"
    home.mkdir()
    shutil.copy(env.home / "config.toml", home / "config.toml")
    return AugerEnv(home, env.project, env.llm, {**env.env, "AUGER_HOME": str(home)})


@pytest.fixture
def replicas(
    auger_env: AugerEnv, pg_url: str, request: pytest.FixtureRequest
) -> Iterator[tuple[Server, Server]]:
    auger_env.env["AUGER_DATABASE_URL"] = pg_url
    mode = getattr(request, "param", "yolo")
    a = start_server(auger_env, "--mode", mode)
    try:
        b = start_server(_second_home(auger_env), "--mode", mode)
    except BaseException:
        a.stop()
        raise
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_any_replica_continues_any_thread_and_a_busy_one_is_409(replicas: tuple[Server, Server]) -> None:
    a, b = replicas
    llm = a.env.llm
    llm.add({"text": "one done"}, {"text": "two done"})
    tid = a.new_thread()
    assert a.run(tid, "turn one")[-1]["text"] == "one done"
    assert b.run(tid, "turn two")[-1]["text"] == "two done"
    assert _users(llm.requests[-1]) == ["turn one", "turn two"]  # B saw A's turn

    gate = Gate(a.env, "slow job", "Slow done.")
    slow = StreamingRun(a, tid, "slow job")
    wait_until(served(a.env, "slow job"), what="the slow turn's model call on replica A")
    with b.client() as c:
        busy = c.post(f"/threads/{tid}/runs", json={"prompt": "lost?"})
        assert busy.status_code == 409
        assert busy.json()["error"] == f"Thread {tid!r} is busy in another auger (pid {a.proc.pid})."
        assert c.get(f"/threads/{tid}").status_code == 200
    gate.open()
    assert slow.rest()[-1]["text"] == "Slow done."

    llm.add({"text": "after done"})
    assert b.run(tid, "after")[-1]["text"] == "after done"
    assert _users(llm.requests[-1]) == ["turn one", "turn two", "slow job", "after"]
    with a.client() as c:
        (listed,) = c.get("/threads").json()["threads"]
    assert listed["id"] == tid and listed["message_count"] == 10


@pytest.mark.parametrize("replicas", ["manual"], indirect=True)
def test_an_approval_is_answered_on_the_replica_running_the_turn(replicas: tuple[Server, Server]) -> None:
    a, b = replicas
    a.env.llm.add(WRITE, {"text": "Wrote it."})
    tid = a.new_thread()
    run = StreamingRun(a, tid, "write n.txt")
    asked = run.until("approval_requested")
    body = {"request_id": asked["request_id"], "decision": "approve"}
    with b.client() as c:
        elsewhere = c.post(f"/threads/{tid}/approvals", json=body)
    assert elsewhere.status_code == 409
    assert elsewhere.json()["error"] == (
        f"Thread {tid!r} is running in another auger (pid {a.proc.pid}); answer its approval there"
        " (the server that started the run)."
    )
    with a.client() as c:
        assert c.post(f"/threads/{tid}/approvals", json=body).status_code == 200
    assert run.rest()[-1]["text"] == "Wrote it."
    assert (a.env.project / "n.txt").read_text() == "N\n"


def test_a_replica_killed_mid_turn_leaves_the_thread_to_the_other(replicas: tuple[Server, Server]) -> None:
    a, b = replicas
    llm = a.env.llm
    llm.add({"text": "one done"}, {"hang": True})
    tid = a.new_thread()
    a.run(tid, "turn one")
    stuck = StreamingRun(a, tid, "stuck")
    wait_until(hang_served(a.env), what="replica A's stuck model call")
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait(30)
    stuck.rest()
    assert stuck.dropped is not None
    llm.add({"text": "B took over"})
    events = b.run(tid, "go on")  # the dead holder's lease is released at once: no 409, no wait
    assert events[-1]["reason"] == "done" and events[-1]["text"] == "B took over"
    users = _users(llm.requests[-1])
    assert users[0] == "turn one" and users[-1] == "go on"


def test_runs_racing_on_both_replicas_are_each_done_or_409(replicas: tuple[Server, Server]) -> None:
    a, b = replicas
    a.env.llm.add({"text": "raced", "repeat": True})
    tid = a.new_thread()  # known to B at once, before any turn
    with b.client() as c:
        assert c.get(f"/threads/{tid}").status_code == 200
    start = threading.Barrier(6)
    answers: dict[str, tuple[int, str | None]] = {}

    def race(server: Server, prompt: str) -> None:
        with server.client() as c:
            start.wait()
            with c.stream("POST", f"/threads/{tid}/runs", json={"prompt": prompt}) as r:
                if r.status_code != 200:
                    r.read()
                    answers[prompt] = (r.status_code, None)
                    return
                events = [json.loads(p) for p in sse_payloads(r.iter_lines())]
                answers[prompt] = (200, events[-1]["reason"])

    racers = [threading.Thread(target=race, args=((a, b)[i % 2], f"racer {i}")) for i in range(6)]
    for t in racers:
        t.start()
    for t in racers:
        t.join(120)
    assert len(answers) == 6 and set(answers.values()) <= {(200, "done"), (409, None)}, answers
    done = sorted(p for p, (status, _) in answers.items() if status == 200)
    assert done  # one of them ran
    with a.client() as c:
        saved = [m["data"]["content"] for m in c.get(f"/threads/{tid}/messages").json()["messages"]]
    assert sorted(m for m in saved if m.startswith("racer")) == done  # every accepted turn, once
