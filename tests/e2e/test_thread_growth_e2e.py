"""End-to-end: collapsed threads with the installed `auger` — a kill -9 mid-turn on a thread whose
earlier turns are collapsed loses only the step in flight; a fork outlives its deleted parent;
`threads prune` gives the space back. On both thread databases (`thread_db`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import Any

from conftest import AUGER, AugerEnv, db_rows
from conftest_llm import typed
from serve_harness import hang_served, wait_until

ZEBRA = "printf '%s%s\\n' zebra fish"  # prints a word that appears in no prompt, reply or argument


def _users(request: dict[str, Any]) -> list[str]:
    return [typed(m["content"]) for m in request["messages"] if m["role"] == "user"]


def _main_checkpoints(database: Any, thread_id: str) -> int:
    sql = "SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
    return int(db_rows(database, sql, thread_id)[0][0])


def _turn(env: AugerEnv, *args: str) -> str:
    proc = env.run(*args, "--mode", "yolo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["thread_id"])


def test_kill_9_mid_turn_after_collapsed_turns_loses_only_the_step_in_flight(
    auger_env: AugerEnv, thread_db: Any
) -> None:
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    tid = _turn(auger_env, "-n", "turn one")
    _turn(auger_env, "-r", tid, "-n", "turn two")
    assert _main_checkpoints(thread_db, tid) == 4  # each turn: its input and its end
    auger_env.llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/notes.txt", "content": "kept\n"}}]},
        {"tool_calls": [{"name": "execute", "args": {"command": ZEBRA}}]},
        {"hang": True},
    )
    proc = subprocess.Popen(
        [AUGER, "-r", tid, "-n", "three steps", "--mode", "yolo"],
        cwd=auger_env.project,
        env=auger_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(hang_served(auger_env), what="the third model call of the turn")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert (auger_env.project / "notes.txt").read_text() == "kept\n"
    shown = auger_env.run("threads", "show", tid)
    assert shown.returncode == 0 and "write_file" in shown.stdout and "zebrafish" in shown.stdout

    auger_env.llm.add({"text": "resumed fine"})
    assert _turn(auger_env, "-r", tid, "-n", "go on") == tid
    sent = auger_env.llm.requests[-1]["messages"]
    assert _users(auger_env.llm.requests[-1]) == ["turn one", "turn two", "three steps", "go on"]
    tools = [str(m["content"]) for m in sent if m["role"] == "tool"]
    assert len(tools) == 2 and "zebrafish" in tools[1]
    # the killed turn is collapsed too: its input and its last saved step are what is left of it
    assert _main_checkpoints(thread_db, tid) == 8
    shown = auger_env.run("threads", "show", tid)
    assert shown.stdout.count("zebrafish") == 1 and "resumed fine" in shown.stdout


def test_a_fork_outlives_its_deleted_parent_and_prune_gives_the_space_back(
    auger_env: AugerEnv, thread_db: Any
) -> None:
    (auger_env.project / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(3000)))
    for i in range(4):
        auger_env.llm.add(
            {"tool_calls": [{"name": "read_file", "args": {"file_path": "/big.txt", "limit": 3000}}]},
            {"text": f"read it, {i}"},
        )
    parent = _turn(auger_env, "-n", "read 0")
    for i in range(1, 4):
        _turn(auger_env, "-r", parent, "-n", f"read {i}")
    fork = auger_env.run("threads", "fork", parent, "--at", "2")
    assert fork.returncode == 0, fork.stderr
    fork_id = fork.stdout.strip()
    assert auger_env.run("threads", "delete", parent).returncode == 0
    db = auger_env.home / "threads.db"
    before = sum(p.stat().st_size for p in (db, db.with_name("threads.db-wal")) if p.exists())

    pruned = auger_env.run("threads", "prune", "--older-than", "30d")
    assert pruned.returncode == 0, pruned.stderr
    assert "Deleted 0 threads not used for" in pruned.stdout and "Compacted" in pruned.stdout
    if not thread_db.postgres:  # PostgreSQL keeps a table's freed pages for its next rows
        assert db.stat().st_size < before * 0.75, (db.stat().st_size, before)

    shown = auger_env.run("threads", "show", fork_id)
    assert shown.returncode == 0 and "read it, 1" in shown.stdout and "read it, 2" not in shown.stdout
    auger_env.llm.add({"text": "the fork goes on"})
    assert _turn(auger_env, "-r", fork_id, "-n", "and now?") == fork_id
    assert _users(auger_env.llm.requests[-1]) == ["read 0", "read 1", "and now?"]
    tools = [m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    read = str(tools[1]["content"])  # one page of the file: up to read_file's page cap
    assert len(tools) == 2 and "line 0 of a long file" in read and len(read) > 50_000, read[:200]
