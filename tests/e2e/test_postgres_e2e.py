"""End-to-end on PostgreSQL: the installed `auger` with `AUGER_DATABASE_URL` (or `database_url` in
config.toml) pointing at a real server (tests/pg_server.py) — headless turns, every `auger threads`
command and `auger serve` keep their threads there (no threads.db is created), and an unreachable
or foreign database is one clear line and exit 2."""

from __future__ import annotations

import json
from typing import Any

import psycopg

from conftest import AugerEnv
from conftest_llm import typed
from serve_harness import start_server

ZEBRA = "printf '%s%s\\n' zebra fish"  # prints a word that appears in no prompt, reply or argument


def _turn(env: AugerEnv, *args: str) -> str:
    proc = env.run(*args, "--mode", "yolo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["thread_id"])


def _threads(env: AugerEnv, *args: str) -> Any:
    proc = env.run("threads", "list", "--all", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_headless_turns_and_every_threads_command_use_postgresql(auger_env: AugerEnv, pg_url: str) -> None:
    auger_env.env["AUGER_DATABASE_URL"] = pg_url
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": ZEBRA}}]},
        {"text": "first answer"},
        {"text": "second answer"},
    )
    tid = _turn(auger_env, "-n", "turn one")
    assert _turn(auger_env, "-r", tid[:8], "-n", "turn two") == tid
    assert not (auger_env.home / "threads.db").exists()  # nothing went to the SQLite file

    (listed,) = _threads(auger_env)
    assert listed["id"] == tid and listed["title"] == "turn one" and listed["message_count"] == 6
    (hit,) = _threads(auger_env, "--search", "zebrafish")
    assert hit["id"] == tid and "**zebrafish**" in hit["snippet"]
    shown = auger_env.run("threads", "show", tid[:8])
    assert shown.returncode == 0 and "zebrafish" in shown.stdout and "second answer" in shown.stdout

    assert auger_env.run("threads", "rename", tid, "Zebra", "work").returncode == 0
    fork = auger_env.run("threads", "fork", tid, "--at", "1")
    assert fork.returncode == 0, fork.stderr
    fork_id = next(t["id"] for t in _threads(auger_env) if t["id"] != tid)
    forked = auger_env.run("threads", "show", fork_id)
    assert "first answer" in forked.stdout and "second answer" not in forked.stdout

    auger_env.llm.add({"text": "fork answer"})
    assert _turn(auger_env, "-r", fork_id, "-n", "fork turn two") == fork_id
    users = [typed(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "user"]
    assert users == ["turn one", "fork turn two"]

    deleted = auger_env.run("threads", "delete", tid)
    assert deleted.returncode == 0, deleted.stderr
    assert [t["id"] for t in _threads(auger_env)] == [fork_id]
    assert "first answer" in auger_env.run("threads", "show", fork_id).stdout  # outlives its parent
    pruned = auger_env.run("threads", "prune", "--older-than", "0s")
    assert pruned.returncode == 0, pruned.stderr
    assert "Compacted postgresql://" in pruned.stdout and _threads(auger_env) == []
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone() == (0,)


def test_database_url_in_the_users_config_and_serve(auger_env: AugerEnv, pg_url: str) -> None:
    config = auger_env.home / "config.toml"
    config.write_text(f'database_url = "{pg_url}"\n' + config.read_text())
    auger_env.llm.add({"text": "served answer"})
    server = start_server(auger_env)
    try:
        thread_id = server.new_thread()
        events = server.run(thread_id, "over http")
        assert events[-1]["type"] == "turn_ended" and events[-1]["text"] == "served answer", events
    finally:
        assert server.stop() == 0
    (listed,) = _threads(auger_env)  # the command reads database_url from config.toml too
    assert listed["id"] == thread_id and listed["title"] == "over http"
    assert not (auger_env.home / "threads.db").exists()


def test_database_url_in_a_projects_config_is_ignored(auger_env: AugerEnv, pg_url: str) -> None:
    (auger_env.project / ".auger").mkdir()
    (auger_env.project / ".auger" / "config.toml").write_text(f'database_url = "{pg_url}"\n')
    auger_env.llm.add({"text": "kept local"})
    proc = auger_env.run("-n", "hello", "--mode", "yolo")
    assert proc.returncode == 0 and "database_url is ignored in a project's config" in proc.stderr
    assert (auger_env.home / "threads.db").exists()


def _one_clear_line(proc: Any) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert "Traceback" not in proc.stderr and lines and lines[0].startswith("auger: "), proc.stderr
    return str(proc.stderr)


def test_an_unreachable_database_is_one_clear_error_exit_2(auger_env: AugerEnv, pg_server: Any) -> None:
    auger_env.env["AUGER_DATABASE_URL"] = f"postgresql://auger:s3cret@127.0.0.1:{pg_server.port + 1}/x"
    for args in (("-n", "hello"), ("threads", "list"), ("threads", "show", "abc")):
        text = _one_clear_line(auger_env.run(*args))
        assert "Cannot connect to the database postgresql://auger:***@127.0.0.1" in text, text
        assert "s3cret" not in text
    auger_env.env["AUGER_DATABASE_URL"] = "mysql://db/x"
    text = _one_clear_line(auger_env.run("threads", "list"))
    assert "is not a PostgreSQL URL" in text and "database_url" in text


def test_a_database_of_something_else_is_refused_exit_2(auger_env: AugerEnv, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    auger_env.env["AUGER_DATABASE_URL"] = pg_url
    for args in (("-n", "hello"), ("threads", "list")):
        text = _one_clear_line(auger_env.run(*args))
        assert "holds tables of something else (invoices)" in text
    with psycopg.connect(pg_url) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert tables == {"invoices"}  # nothing was written
