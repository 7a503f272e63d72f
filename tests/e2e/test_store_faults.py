"""End-to-end: the thread database failing in the middle of a turn — SQLite locked by another
program, PostgreSQL stopped — is reported as the thread store's error, naming the database and
what to do (exit 1: the turn failed), never as the model failing; the thread resumes after."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from conftest import AugerEnv
from turn_checks import assert_clean_error


def test_a_locked_sqlite_database_is_the_stores_error(auger_env: AugerEnv) -> None:
    db = auger_env.home / "threads.db"
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    def lock() -> None:  # another program takes the database while the model answers
        holder.execute("BEGIN EXCLUSIVE")

    auger_env.llm.add({"text": "the answer", "before": lock})
    try:
        proc = auger_env.run("-n", "hello?", timeout=120)
    finally:
        holder.close()
    assert_clean_error(proc, 1, f"thread database {db} is locked by another program", "auger -r ")
    assert "scripted-model" not in proc.stderr
    auger_env.llm.add({"text": "resumed"})
    tid = proc.stderr.split("auger -r ")[1].split(")")[0]
    again = auger_env.run("-n", "go on", "-r", tid)
    assert again.returncode == 0 and again.stdout.strip() == "resumed", again.stderr


def test_a_database_locked_before_auger_starts_is_not_called_unreadable(auger_env: AugerEnv) -> None:
    db = auger_env.home / "threads.db"
    holder = sqlite3.connect(db, isolation_level=None)  # another program's database file, locked
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = auger_env.run("-n", "hello?", timeout=120)
    finally:
        holder.close()
    assert_clean_error(proc, 2, f"thread database {db} is locked by another program", "then try again")
    assert "Move it aside" not in proc.stderr and auger_env.llm.requests == []


def test_a_stopped_postgresql_is_the_stores_error(auger_env: AugerEnv) -> None:
    from pg_server import running

    folder = Path(tempfile.mkdtemp(prefix="auger-pg-"))  # not under pytest's 0700 root (conftest.pg_server)
    try:
        with running(folder) as server:  # a server of its own: this test stops it
            auger_env.env["AUGER_DATABASE_URL"] = server.database()
            auger_env.llm.add({"text": "the answer", "before": server.stop})
            proc = auger_env.run("-n", "hello?", timeout=120)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert_clean_error(
        proc, 1, "thread database postgresql://", f"127.0.0.1:{server.port}", "server is running"
    )
    assert "scripted-model" not in proc.stderr
