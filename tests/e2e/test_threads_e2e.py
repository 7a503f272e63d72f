"""End-to-end: threads with the installed `auger` command against the scripted server — listing per
project, search, resume (-r), fork, a kill -9 mid-turn, two processes on one DB, a bad DB file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from conftest import AUGER, AugerEnv
from conftest_llm import typed

ZEBRA = "printf '%s%s\\n' zebra fish"  # prints a word that appears in no prompt, reply or argument


def _threads(env: AugerEnv, *args: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    proc = env.run("threads", "list", "--json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _users(request: dict[str, Any]) -> list[str]:
    return [typed(m["content"]) for m in request["messages"] if m["role"] == "user"]


def _popen(env: AugerEnv, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [AUGER, *args],
        cwd=env.project,
        env=env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def _integrity(env: AugerEnv) -> str:
    conn = sqlite3.connect(env.home / "threads.db")
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def test_two_folders_list_search_and_resume(auger_env: AugerEnv, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    auger_env.llm.add(
        {
            "when": {"last_user_contains": "alpha task"},
            "tool_calls": [{"name": "execute", "args": {"command": ZEBRA}}],
        },
        {"when": {"last_user_contains": "alpha task"}, "text": "alpha done"},
        {"when": {"last_user_contains": "beta task"}, "text": "beta done"},
    )
    a = auger_env.run("-n", "alpha task", "--mode", "yolo")
    assert a.returncode == 0, a.stderr
    b = auger_env.run("-n", "beta task", cwd=other)
    assert b.returncode == 0, b.stderr

    (ta,) = _threads(auger_env)
    (tb,) = _threads(auger_env, cwd=other)
    assert ta["title"] == "alpha task" and ta["cwd"] == str(auger_env.project)
    assert tb["title"] == "beta task" and tb["cwd"] == str(other)
    assert ta["message_count"] == 4 and tb["message_count"] == 2
    assert ta["model"] == "local:scripted-model" and ta["parent_id"] is None
    assert [t["id"] for t in _threads(auger_env, "--all")] == [tb["id"], ta["id"]]
    assert [t["id"] for t in _threads(auger_env, "--cwd", str(other))] == [tb["id"]]
    first = auger_env.run("threads", "list", "--all", "--json").stdout
    assert auger_env.run("threads", "list", "--all", "--json").stdout == first  # stable
    text = auger_env.run("threads", "list", "--all")
    assert "alpha task" in text.stdout and "beta task" in text.stdout and str(other) in text.stdout

    # the word is only in alpha's tool result
    (hit,) = _threads(auger_env, "--all", "--search", "zebrafish")
    assert hit["id"] == ta["id"] and "**zebrafish**" in hit["snippet"]
    assert _threads(auger_env, "--search", "zebrafish", cwd=other) == []
    shown = auger_env.run("threads", "list", "--all", "--search", "zebrafish").stdout  # a pipe: plain words
    assert "zebrafish" in shown and "**" not in shown

    # -r continues this folder's thread; -r PREFIX any thread
    auger_env.llm.add({"text": "continued"})
    r = auger_env.run("-r", "-n", "and more")
    assert r.returncode == 0 and r.stdout.strip() == "continued", r.stderr
    assert _users(auger_env.llm.requests[-1]) == ["alpha task", "and more"]
    assert any("zebrafish" in str(m["content"]) for m in auger_env.llm.requests[-1]["messages"])
    auger_env.llm.add({"text": "beta again"})
    r = auger_env.run("-r", tb["id"][:8], "-n", "beta more")
    assert r.returncode == 0, r.stderr
    assert _users(auger_env.llm.requests[-1]) == ["beta task", "beta more"]
    (ta2,) = _threads(auger_env)
    assert ta2["id"] == ta["id"] and ta2["message_count"] == 6

    bad = auger_env.run("-r", "0123nothing", "-n", "x")
    assert bad.returncode == 2 and "No thread '0123nothing'" in bad.stderr
    empty = auger_env.run("-r", "-n", "x", cwd=tmp_path)
    assert empty.returncode == 2 and "No threads yet" in empty.stderr


def test_fork_at_turn_one_of_three(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "answer one"}, {"text": "answer two"}, {"text": "answer three"})
    assert auger_env.run("-n", "turn one").returncode == 0
    assert auger_env.run("-r", "-n", "turn two").returncode == 0
    assert auger_env.run("-r", "-n", "turn three").returncode == 0
    (orig,) = _threads(auger_env)
    before = auger_env.run("threads", "show", orig["id"][:6]).stdout

    fork = auger_env.run("threads", "fork", orig["id"][:6], "--at", "1")
    assert fork.returncode == 0, fork.stderr
    new_id = fork.stdout.strip()
    assert len(new_id) == 32 and new_id != orig["id"]
    shown = auger_env.run("threads", "show", new_id)
    assert "turn one" in shown.stdout and "answer one" in shown.stdout
    assert "turn two" not in shown.stdout and "answer two" not in shown.stdout
    after = auger_env.run("threads", "show", orig["id"])
    assert after.stdout == before and "turn three" in after.stdout  # the original is unchanged
    listed = {t["id"]: t for t in _threads(auger_env)}
    assert listed[new_id]["parent_id"] == orig["id"] and listed[new_id]["message_count"] == 2
    md = auger_env.run("threads", "show", new_id, "--markdown")
    assert md.stdout.startswith("# turn one") and "## User" in md.stdout

    auger_env.llm.add({"text": "fork answer"})
    assert auger_env.run("-r", new_id[:10], "-n", "fork turn").returncode == 0
    assert _users(auger_env.llm.requests[-1]) == ["turn one", "fork turn"]

    renamed = auger_env.run("threads", "rename", new_id[:10], "Branch", "B")
    assert renamed.returncode == 0 and _threads(auger_env)[0]["title"] == "Branch B"
    deleted = auger_env.run("threads", "delete", new_id)
    assert deleted.returncode == 0 and [t["id"] for t in _threads(auger_env)] == [orig["id"]]
    gone = auger_env.run("threads", "show", new_id)
    assert gone.returncode == 2 and "No thread" in gone.stderr
    conn = sqlite3.connect(auger_env.home / "threads.db")
    assert conn.execute("select count(*) from checkpoints where thread_id=?", (new_id,)).fetchone()[0] == 0
    assert conn.execute("select count(*) from writes where thread_id=?", (new_id,)).fetchone()[0] == 0
    pruned = auger_env.run("threads", "prune", "--older-than", "30d")
    assert pruned.returncode == 0 and "Deleted 0 threads not used for 30d." in pruned.stdout


def test_kill_9_mid_turn_keeps_every_completed_step(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/notes.txt", "content": "kept\n"}}]},
        {"tool_calls": [{"name": "execute", "args": {"command": ZEBRA}}]},
        {"hang": True},
    )
    proc = _popen(auger_env, "-n", "three steps", "--mode", "yolo", "--output-format", "stream-json")
    try:
        _wait_for(lambda: len(auger_env.llm.requests) >= 3 or proc.poll() is not None)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    thread_id = json.loads(out.splitlines()[0])["thread_id"]
    assert _integrity(auger_env) == "ok"

    (listed,) = _threads(auger_env)  # registered when the turn started
    assert listed["id"] == thread_id and listed["title"] == "three steps"
    shown = auger_env.run("threads", "show", thread_id[:8])
    assert shown.returncode == 0, shown.stderr
    assert "write_file" in shown.stdout and "zebrafish" in shown.stdout  # both completed steps

    auger_env.llm.add({"text": "resumed fine"})
    r = auger_env.run("-r", "-n", "go on", "--mode", "yolo")
    assert r.returncode == 0 and r.stdout.strip() == "resumed fine", r.stderr
    sent = auger_env.llm.requests[-1]["messages"]
    tools = [str(m["content"]) for m in sent if m["role"] == "tool"]
    assert len(tools) == 2 and "zebrafish" in tools[1]
    assert _users(auger_env.llm.requests[-1]) == ["three steps", "go on"]
    (hit,) = _threads(auger_env, "--search", "zebrafish")
    assert hit["id"] == thread_id and hit["message_count"] == 7


def test_two_processes_share_the_database(auger_env: AugerEnv) -> None:
    steps = 4
    for name in ("alpha", "beta"):
        when = {"last_user_contains": f"{name} job"}
        for i in range(steps):
            cmd = f"echo {name}-step-{i}"
            auger_env.llm.add(
                {"when": when, "delay": 0.05, "tool_calls": [{"name": "execute", "args": {"command": cmd}}]}
            )
        auger_env.llm.add({"when": when, "text": f"{name} done"})
    procs = {
        name: _popen(auger_env, "-n", f"{name} job", "--mode", "yolo", "--output-format", "json")
        for name in ("alpha", "beta")
    }
    results = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        results[name] = json.loads(out)
    assert {r["text"] for r in results.values()} == {"alpha done", "beta done"}
    assert _integrity(auger_env) == "ok"
    listed = {t["id"]: t for t in _threads(auger_env)}
    for name, result in results.items():
        info = listed[result["thread_id"]]
        assert info["title"] == f"{name} job" and info["message_count"] == 2 + 2 * steps
        shown = auger_env.run("threads", "show", result["thread_id"]).stdout
        other = "beta" if name == "alpha" else "alpha"
        assert all(f"{name}-step-{i}" in shown for i in range(steps)) and f"{other}-step" not in shown


def test_bad_database_file_is_refused_and_kept(auger_env: AugerEnv) -> None:
    db = auger_env.home / "threads.db"
    db.write_bytes(b"PK\x03\x04 definitely a zip file, not sqlite" * 50)
    before = db.read_bytes()
    run = auger_env.run("-n", "hello")
    assert run.returncode == 2 and "not an SQLite database" in run.stderr and "Traceback" not in run.stderr
    listed = auger_env.run("threads", "list")
    assert listed.returncode == 2 and "will not overwrite" in listed.stderr
    assert db.read_bytes() == before

    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("create table photos (id integer primary key, path text)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    run = auger_env.run("-n", "hello")
    assert run.returncode == 2 and "something else" in run.stderr
    assert db.read_bytes() == before
