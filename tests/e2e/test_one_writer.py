"""End-to-end: one writer per thread. Real `auger -r ID -n ...` processes racing on one thread take
turns (the second waits, with a notice) or the second is refused — never a turn silently lost;
a kill -9'd holder blocks nobody; `auger serve` answers 409 for a thread another auger holds."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time

from conftest import AUGER, AugerEnv
from conftest_llm import typed
from serve_harness import Gate, served, start_server, wait_until


def _popen(env: AugerEnv, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [AUGER, *args],
        cwd=env.project,
        env={**env.env, **(extra_env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _new_thread(env: AugerEnv) -> str:
    env.llm.add({"when": {"last_user_contains": "start"}, "text": "Started."})
    proc = env.run("-n", "start", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["thread_id"])


def _stderr_until(proc: subprocess.Popen[str], needle: str, timeout: float = 60) -> str:
    """Read `proc`'s stderr until a line holds `needle` (or it exits); the lines read."""
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    deadline, lines = time.monotonic() + timeout, []
    while time.monotonic() < deadline and sel.select(deadline - time.monotonic()):
        line = proc.stderr.readline()
        lines.append(line)
        if not line or needle in line:
            break
    return "".join(lines)


def test_a_second_auger_on_the_thread_waits_for_the_first_turn(auger_env: AugerEnv) -> None:
    tid = _new_thread(auger_env)
    gate = Gate(auger_env, "first job", "First done.")
    auger_env.llm.add({"when": {"last_user_contains": "second job"}, "text": "Second done."})
    first = _popen(auger_env, "-r", tid, "-n", "first job", "--mode", "yolo")
    wait_until(served(auger_env, "first job"), what="the first turn's model call")
    second = _popen(auger_env, "-r", tid, "-n", "second job")
    notice = _stderr_until(second, "waiting up to")
    assert f"is busy in another auger (pid {first.pid}); waiting up to 60 s" in notice
    assert not served(auger_env, "second job")()  # it waits before anything reaches the model
    gate.open()
    out1, err1 = first.communicate(timeout=90)
    out2, err2 = second.communicate(timeout=90)
    assert (first.returncode, out1.strip()) == (0, "First done."), err1
    assert (second.returncode, out2.strip()) == (0, "Second done."), err2
    # both turns are in the thread, in order, and the second one saw the first
    last = auger_env.llm.requests[-1]
    users = [typed(m["content"]) for m in last["messages"] if m["role"] == "user"]
    assert users == ["start", "first job", "second job"]
    assert "First done." in json.dumps(last["messages"])
    [info] = json.loads(auger_env.run("threads", "list", "--json").stdout)
    assert info["message_count"] == 8  # 3 prompts, 3 answers, the gate's tool call and result


def test_with_no_wait_the_second_is_refused_and_nothing_is_lost(auger_env: AugerEnv) -> None:
    tid = _new_thread(auger_env)
    gate = Gate(auger_env, "first job", "First done.")
    first = _popen(auger_env, "-r", tid, "-n", "first job", "--mode", "yolo")
    wait_until(served(auger_env, "first job"), what="the first turn's model call")
    second = _popen(auger_env, "-r", tid, "-n", "second job", extra_env={"AUGER_THREAD_WAIT": "0"})
    _, err2 = second.communicate(timeout=90)
    gate.open()
    out1, err1 = first.communicate(timeout=90)
    assert (first.returncode, out1.strip()) == (0, "First done."), err1
    assert second.returncode == 1 and "Traceback" not in err2
    assert f"auger: Thread {tid} is busy in another auger (pid {first.pid})." in err2
    assert not served(auger_env, "second job")()  # the refused turn never reached the model
    [info] = json.loads(auger_env.run("threads", "list", "--json").stdout)
    assert info["message_count"] == 6  # start and first job with their answers, the gate's call
    auger_env.llm.add({"when": {"last_user_contains": "second job"}, "text": "Second done."})
    again = auger_env.run("-r", tid, "-n", "second job")  # once it is free, it runs
    assert again.returncode == 0 and again.stdout.strip() == "Second done.", again.stderr


def test_a_kill_9_holder_does_not_block_the_thread(auger_env: AugerEnv) -> None:
    tid = _new_thread(auger_env)
    auger_env.llm.add({"when": {"last_user_contains": "stuck job"}, "hang": True})
    stuck = _popen(auger_env, "-r", tid, "-n", "stuck job")
    wait_until(served(auger_env, "stuck job"), what="the stuck turn's model call")
    os.kill(stuck.pid, signal.SIGKILL)
    stuck.communicate(timeout=30)
    auger_env.llm.add({"when": {"last_user_contains": "next job"}, "text": "Next done."})
    started = time.monotonic()
    proc = auger_env.run("-r", tid, "-n", "next job")
    assert proc.returncode == 0 and proc.stdout.strip() == "Next done.", proc.stderr
    assert "busy" not in proc.stderr  # its dead pid released the thread at once, no wait
    assert time.monotonic() - started < 30  # well inside the lease's 30 s expiry


def test_the_server_answers_409_for_a_thread_another_auger_holds(auger_env: AugerEnv) -> None:
    tid = _new_thread(auger_env)
    server = start_server(auger_env, "--mode", "yolo")
    try:
        gate = Gate(auger_env, "first job", "First done.")
        first = _popen(auger_env, "-r", tid, "-n", "first job", "--mode", "yolo")
        wait_until(served(auger_env, "first job"), what="the headless turn's model call")
        with server.client() as c:
            busy = c.post(f"/threads/{tid}/runs", json={"prompt": "server job"})
            assert busy.status_code == 409
            assert busy.json()["error"] == f"Thread {tid!r} is busy in another auger (pid {first.pid})."
        gate.open()
        out1, err1 = first.communicate(timeout=90)
        assert (first.returncode, out1.strip()) == (0, "First done."), err1
        auger_env.llm.add({"when": {"last_user_contains": "server job"}, "text": "Server done."})
        events = server.run(tid, "server job")
        assert events[-1]["reason"] == "done" and events[-1]["text"] == "Server done."
    finally:
        assert server.stop() == 0
