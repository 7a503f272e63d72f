"""Shared fixtures: an isolated AUGER_HOME + project, the scripted LLM server, and a runner for the
real `auger` command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest_llm import ScriptedLLM, scripted_llm  # noqa: F401

AUGER = str(Path(sys.executable).with_name("auger"))


@dataclass
class AugerEnv:
    """An isolated user (AUGER_HOME) and project folder wired to a scripted LLM server."""

    home: Path
    project: Path
    llm: ScriptedLLM
    env: dict[str, str] = field(default_factory=dict)

    def write_config(self, extra: str = "", *, model: str = "local:scripted-model") -> None:
        text = (
            f'model = "{model}"\n'
            "[providers.local]\n"
            f'base_url = "{self.llm.base_url}"\n'
            'models = ["scripted-model", "other-model"]\n'
        )
        (self.home / "config.toml").write_text(text + extra)

    def run(
        self, *args: str, input: str | None = None, cwd: Path | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [AUGER, *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            cwd=cwd or self.project,
            env=self.env,
            timeout=timeout,
        )

    def events(self, proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
        """Parse stream-json stdout into a list of events."""
        return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


@pytest.fixture
def auger_env(tmp_path: Path, scripted_llm: ScriptedLLM) -> Iterator[AugerEnv]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_", "ANTHROPIC_"))}
    env["AUGER_HOME"] = str(home)
    env["HOME"] = str(tmp_path)
    ae = AugerEnv(home, project, scripted_llm, env)
    ae.write_config()
    yield ae


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL server (tests/pg_server.py), started once per test session (per worker).
    Its folder is not under pytest's temporary root: that is kept at mode 0700 (pytest resets it
    whenever a pytest starts), which would lock the server's OS user out."""
    import shutil
    import tempfile

    from pg_server import running

    folder = Path(tempfile.mkdtemp(prefix="auger-pg-"))
    try:
        with running(folder) as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a new, empty PostgreSQL database on the session's server."""
    return str(pg_server.database())


@pytest.fixture(params=["sqlite", "postgres"])
def thread_db(request: pytest.FixtureRequest, auger_env: AugerEnv) -> Any:
    """`auger_env`'s thread database, once per backend: the SQLite file in its AUGER_HOME, or a
    fresh PostgreSQL database (AUGER_DATABASE_URL set for every `auger` the test runs)."""
    from auger.core.threads.backend import ThreadDatabase

    url = request.getfixturevalue("pg_url") if request.param == "postgres" else ""
    if url:
        auger_env.env["AUGER_DATABASE_URL"] = url
    return ThreadDatabase(auger_env.home, url)


def db_rows(database: Any, sql: str, *params: Any) -> list[Any]:
    """The rows of one query (`?` placeholders) on a thread database (`thread_db`), through
    auger's own backend."""
    from auger.core.threads.backend import open_backend

    backend = open_backend(database)
    try:
        return [tuple(r) for r in backend.reader().execute(sql, params).fetchall()]
    finally:
        backend.close()


def db_bytes(database: Any) -> int:
    """What the thread database takes on disk: the SQLite file (its log checkpointed into it
    first), or the PostgreSQL tables of the current schema with their TOAST and indexes, rewritten
    first (VACUUM FULL: what the rows left take once (auto)vacuum lets new rows reuse the space of
    deleted ones)."""
    import sqlite3

    if database.postgres:
        from auger.core.threads.postgres.db import connect

        conn = connect(database.url)
        try:
            conn.execute("VACUUM FULL")
        finally:
            conn.close()
        sql = (
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema()"
        )
        return int(db_rows(database, sql)[0][0])
    conn = sqlite3.connect(database.path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return database.path.stat().st_size


from langgraph_harness import hosted  # noqa: E402, F401  (session-scoped: one `langgraph dev` per run)
