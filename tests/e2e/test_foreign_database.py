"""A thread database auger did not make — another LangGraph application's checkpoints, written by
LangGraph's own savers on SQLite and PostgreSQL — stops every command with exit 2 and one line
naming the database and what was found; none of its threads is read, continued or deleted."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph

from conftest import AugerEnv

CUSTOMERS = ("customer-1", "customer-2")


class _State(TypedDict):
    text: str


def _app(saver: Any) -> Any:
    """Another application: a one-node LangGraph graph keeping its state in `saver`."""
    builder = StateGraph(_State)
    builder.add_node("reply", lambda state: {"text": state["text"] + " (answered)"})
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    return builder.compile(checkpointer=saver)


def _sqlite_app(env: AugerEnv) -> str:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = env.home / "threads.db"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        app = _app(SqliteSaver(conn))
        for customer in CUSTOMERS:
            app.invoke({"text": f"order of {customer}"}, {"configurable": {"thread_id": customer}})
    return str(path)


def _postgres_app(env: AugerEnv, url: str) -> str:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        app = _app(saver)
        for customer in CUSTOMERS:
            app.invoke({"text": f"order of {customer}"}, {"configurable": {"thread_id": customer}})
    env.env["AUGER_DATABASE_URL"] = url
    return url.split("@")[-1]  # the host part: the message shows the URL without the password


def _rows(backend: str, where: str) -> list[tuple[Any, ...]]:
    sql = "SELECT thread_id, checkpoint_id FROM checkpoints ORDER BY 1, 2"
    if backend == "sqlite":
        with sqlite3.connect(where) as conn:
            return list(conn.execute(sql).fetchall())
    with psycopg.connect(where) as conn:
        return list(conn.execute(sql).fetchall())


@pytest.fixture(params=["sqlite", "postgres"])
def foreign(request: pytest.FixtureRequest, auger_env: AugerEnv) -> Iterator[tuple[str, str, str]]:
    """(backend, how the message names the database, where to read it back)."""
    if request.param == "sqlite":
        path = _sqlite_app(auger_env)
        yield "sqlite", path, path
    else:
        url = str(request.getfixturevalue("pg_url"))
        yield "postgres", _postgres_app(auger_env, url), url


def test_another_langgraph_apps_database_stops_every_command(
    auger_env: AugerEnv, foreign: tuple[str, str, str]
) -> None:
    backend, named, where = foreign
    before = _rows(backend, where)
    assert {row[0] for row in before} == set(CUSTOMERS)
    auger_env.llm.add({"text": "must not run"})
    for args in (
        ("threads", "list"),
        ("threads", "show", "customer-1"),
        ("threads", "delete", "customer-2"),
        ("-r", "customer-1", "-n", "continue this"),
        ("-n", "a new thread"),
    ):
        proc = auger_env.run(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert lines[0].startswith("auger: ") and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert named in lines[0] and "another application's LangGraph checkpoints" in lines[0], lines
        assert "order of customer" not in proc.stdout
    assert _rows(backend, where) == before  # nothing read into a turn, written or deleted
    assert not auger_env.llm.requests
