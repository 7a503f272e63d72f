"""Threads that cost little: what a turn leaves in the thread database (collapsed checkpoints, no
catalogue in state, short channel versions), with real Sessions against the scripted server and
a real SQLite file or PostgreSQL server (`database`: the collapse tests run on both) — and
everything a thread is read, resumed and forked from still right."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auger.core import events as ev
from auger.core.runtime import open_runtime, open_session
from auger.core.session.session import Session
from auger.core.threads.backend import ThreadDatabase
from auger.core.threads.checkpoints.collapse import Step, plan
from auger.core.threads.checkpoints.sqlite_saver import next_version
from auger.core.threads.history import read_history
from auger.core.threads.index import ThreadIndex, fork_thread
from conftest import db_bytes, db_rows
from conftest_llm import typed
from llm_server import ScriptedLLM
from session_helpers import options, scripted_settings

TOOL = {"tool_calls": [{"name": "read_file", "args": {"file_path": "/README.md"}}]}
READ = "@@ lines 1-3 of 3 @@\n     1\t# demo\n     "  # the first 40 characters of its result


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> ThreadDatabase:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else ""
    return ThreadDatabase(tmp_path / "home", url)


def _db(session: Session) -> Path:
    return Path(session.runtime.settings.home) / "threads.db"


def _rows(db: Path, sql: str, *params: Any) -> list[Any]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def _turn(session: Session, prompt: str) -> list[ev.Event]:
    events = [e async for e in session.send(prompt, options(session, headless=True))]
    assert isinstance(events[-1], ev.TurnEnded) and events[-1].reason == "done", events
    return events


async def _session(tmp_path: Path, llm: ScriptedLLM, database: ThreadDatabase | None = None) -> Session:
    settings = scripted_settings(tmp_path, llm, database_url=database.url if database else "")
    (settings.project_root / "README.md").write_text("# demo\n\nA small project.\n")
    return await open_session(settings)


async def test_a_simple_turn_adds_at_most_10_kb(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    session = await _session(tmp_path, scripted_llm, database)
    try:
        scripted_llm.add(*[{"text": f"Sure, here is answer number {i}."} for i in range(21)])
        await _turn(session, "a first question")
        before = db_bytes(database)
        for i in range(20):
            await _turn(session, f"a simple question number {i}?")
        growth = (db_bytes(database) - before) / 20
        main, sub = (
            db_rows(database, f"SELECT count(*) FROM checkpoints WHERE checkpoint_ns {op} ''")[0][0]
            for op in ("=", "!=")
        )
    finally:
        await session.aclose()
    # PostgreSQL: what the rows take (`db_bytes`), in 8 KB pages per table and index
    assert growth <= 10_000, f"{growth:,.0f} bytes per simple turn"
    assert (main, sub) == (2 * 21, 0)  # each turn's input and end checkpoints, nothing else


async def test_history_forks_and_resume_are_unchanged_by_collapsing(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    """30 tool turns (~90 message writes: past deepagents' snapshot of the messages every 50):
    the history, a fresh process's read, and a fork at every 5th turn are exactly the turns."""
    session = await _session(tmp_path, scripted_llm, database)
    turns = 30
    try:
        for i in range(turns):
            scripted_llm.add(TOOL, {"text": f"answer {i}"})
            await _turn(session, f"question {i}")
        history = await session.messages()
        tid, store = session.thread_id, session.runtime.threads
        forks = {at: await fork_thread(store, tid, at) for at in (1, 5, 17, 30)}
        fork_histories = {at: await read_history(database, fid) for at, fid in forks.items()}
        scripted_llm.add({"text": "after the fork"})
        await session.open_thread(forks[17])
        await _turn(session, "continue the fork")
        continued = await session.messages()
        saved = session.runtime.checkpointer.alist({"configurable": {"thread_id": tid, "checkpoint_ns": ""}})
        snapshots = sum(["messages" in t.checkpoint["channel_values"] async for t in saved])
    finally:
        await session.aclose()

    def shape(messages: list[Any]) -> list[tuple[str, str]]:
        return [(m.type, str(m.content)[:40]) for m in messages]

    expected = []
    for i in range(turns):
        expected += [("human", f"question {i}"), ("ai", ""), ("tool", READ), ("ai", f"answer {i}")]
    assert shape(history) == expected
    assert shape(await read_history(database, tid)) == expected
    for at, messages in fork_histories.items():
        assert shape(messages) == expected[: 4 * at], at
    assert shape(continued) == [*expected[: 4 * 17], ("human", "continue the fork"), ("ai", "after the fork")]
    assert 1 <= snapshots < 4  # the walk back is still bounded by the kept snapshots


async def test_no_checkpoint_holds_the_skill_catalogue_or_memory(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    """They are read at every turn anyway; a run resumed after an approval still sends them."""
    settings = scripted_settings(tmp_path, scripted_llm)
    (settings.project_root / "AGENTS.md").write_text("Always answer in haiku. MEMORY-MARKER\n")
    settings.mode = "manual"
    scripted_llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/out.txt", "content": "x\n"}}]},
        {"text": "written"},
    )
    session = await open_session(settings)
    try:
        async for event in session.send("write it", options(session)):
            if isinstance(event, ev.ApprovalRequested):
                event.respond(ev.ApprovalDecision("approve"))
        db = _db(session)
    finally:
        await session.aclose()
    assert (settings.project_root / "out.txt").read_text() == "x\n"
    blobs = [b for (b,) in _rows(db, "SELECT checkpoint FROM checkpoints")] + [
        b for (b,) in _rows(db, "SELECT value FROM writes")
    ]
    assert blobs and not [b for b in blobs if b"code-review" in b or b"MEMORY-MARKER" in b]
    first, after_approval = scripted_llm.requests[-2:]
    for request in (first, after_approval):
        system = str(request["messages"][0]["content"])
        assert "code-review" in system and "MEMORY-MARKER" in system


async def test_a_thread_saved_before_continues(tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    """A thread written by LangGraph's own SQLite saver (long versions, every step kept)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from auger.core.agent.graph import create_cli_agent

    settings = scripted_settings(tmp_path, scripted_llm)
    (settings.project_root / "README.md").write_text("# demo\n")
    settings.home.mkdir(exist_ok=True)
    async with open_runtime(settings) as rt, aiosqlite.connect(settings.home / "threads.db") as conn:
        saver = AsyncSqliteSaver(conn)
        graph = create_cli_agent(settings, checkpointer=saver, backend=rt.backend)
        before = dataclasses.replace(
            rt, graph=graph, checkpointer=saver, index=ThreadIndex(rt.threads, settings)
        )
        old = before.session()
        for i in range(3):
            scripted_llm.add(TOOL, {"text": f"old answer {i}"})
            await _turn(old, f"old question {i}")
    session = await open_session(settings, old.thread_id)
    try:
        for i in range(3):
            scripted_llm.add(TOOL, {"text": f"new answer {i}"})
            await _turn(session, f"new question {i}")
        history = await session.messages()
        state = await session.runtime.graph.aget_state(session.config())
        saved = await session.runtime.checkpointer.aget_tuple(session.config())
        main = _rows(_db(session), "SELECT count(*) FROM checkpoints WHERE checkpoint_ns = ''")[0][0]
    finally:
        await session.aclose()
    texts = [str(m.content) for m in history if m.type in ("human", "ai") and m.content]
    assert texts == [t for i in range(3) for t in (f"old question {i}", f"old answer {i}")] + [
        t for i in range(3) for t in (f"new question {i}", f"new answer {i}")
    ]
    assert state.next == () and main == 2 * 6  # the old turns' steps are collapsed too
    versions = saved.checkpoint["channel_versions"]
    old = {k: v for k, v in versions.items() if not v[:1].isalpha()}  # channels not written since
    new = {k: v for k, v in versions.items() if v[:1].isalpha()}
    assert old and new and min(new.values()) > max(old.values()), versions
    sent = scripted_llm.requests[-1]["messages"]
    assert [typed(m["content"]) for m in sent if m["role"] == "user"] == [
        *(f"old question {i}" for i in range(3)),
        *(f"new question {i}" for i in range(3)),
    ]


async def test_a_subagents_checkpoints_go_when_its_turn_is_done(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    session = await _session(tmp_path, scripted_llm, database)
    task = {"name": "task", "args": {"description": "read the readme", "subagent_type": "general-purpose"}}
    scripted_llm.add(
        {"tool_calls": [task]},
        {"when": {"last_user_contains": "read the readme"}, **TOOL},
        {"when": {"last_user_contains": "read the readme"}, "text": "the readme says demo"},
        {"text": "the subagent says demo"},
    )
    try:
        await _turn(session, "delegate it")
        history = await session.messages()
        writes = "checkpoint_writes" if database.postgres else "writes"
        sub = db_rows(database, "SELECT count(*) FROM checkpoints WHERE checkpoint_ns != ''")[0][0]
        subw = db_rows(database, f"SELECT count(*) FROM {writes} WHERE checkpoint_ns != ''")[0][0]
        if database.postgres:  # and the channel values only they named
            subw += db_rows(database, "SELECT count(*) FROM checkpoint_blobs WHERE checkpoint_ns != ''")[0][0]
    finally:
        await session.aclose()
    assert [m.type for m in history] == ["human", "ai", "tool", "ai"]
    assert "the readme says demo" in str(history[2].content)
    assert (sub, subw) == (0, 0)


# -- the plan and the versions, as pure functions ------------------------------------------------


def _chain(*sources: str | None) -> list[Step]:
    return [Step(f"c{i:02d}", f"c{i - 1:02d}" if i else None, s, i - 1) for i, s in enumerate(sources)]


def test_plan_keeps_turn_boundaries_the_latest_and_seed_holders() -> None:
    chain = _chain("input", "loop", "loop", "loop", "input", "loop", "loop", "update", "loop")
    todo = plan(chain, holds_seed=lambda cid: cid == "c06")
    # kept: c00 (first), c03 (before an input), c04 (input), c06 (seed), c08 (latest)
    assert todo.delete == {"c01": ("c00", 0), "c02": ("c00", 1), "c05": ("c04", 4), "c07": ("c06", 6)}
    assert todo.relink == {"c03": "c00", "c06": "c04", "c08": "c06"}


def test_plan_keeps_only_the_newest_seed_holder() -> None:
    chain = _chain("input", "loop", "loop", "loop", "loop")
    todo = plan(chain, holds_seed=lambda cid: cid in ("c01", "c03", "c04"))
    assert todo.delete == {"c01": ("c00", 0), "c02": ("c00", 1), "c03": ("c00", 2)}
    assert (todo.seed, todo.seed_only) == ("c04", False)  # the latest: kept anyway
    todo = plan(chain, holds_seed=lambda cid: cid in ("c01", "c02"))
    assert set(todo.delete) == {"c01", "c03"} and (todo.seed, todo.seed_only) == ("c02", True)


def test_plan_of_a_collapsed_thread_is_empty() -> None:
    assert plan(_chain("input", "loop", "input", "loop", "input", "loop"), lambda _: False).delete == {}
    assert plan(_chain("input", "loop"), lambda _: True).delete == {}


@given(st.integers(0, 10**12), st.integers(1, 10**6))
def test_versions_sort_as_numbers_and_after_the_savers_own(a: int, gap: int) -> None:
    legacy = f"{a:032}.{0.123456:016}"
    assert next_version(a) < next_version(a + gap)
    assert next_version(legacy) > legacy and next_version(legacy) == next_version(a)
    assert next_version(next_version(a)) == next_version(a + 1)


@pytest.mark.parametrize("current", [None, 0, "a1", "b42", "00000000000000000000000000000012.0.5"])
def test_next_version_counts_on(current: Any) -> None:
    expected = {None: "a1", 0: "a1", "a1": "a2", "b42": "b43"}.get(current, "b13")
    assert next_version(current) == expected
