"""ThreadStore and the thread operations over a real Session + scripted server, each on both
thread databases: the SQLite file and a real PostgreSQL server (tests/pg_server.py)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auger.core import events as ev
from auger.core.runtime import open_runtime, open_session
from auger.core.threads.backend import ThreadDatabase
from auger.core.threads.checkpoints.checkpointer import open_saver
from auger.core.threads.history import read_history
from auger.core.threads.index import fork_thread, messages_after
from auger.core.threads.schema import MIGRATIONS
from auger.core.threads.search import IndexedMessage, fts_query
from auger.core.threads.store import ThreadStore, make_title, parse_age, resolve_thread
from auger.errors import ThreadError, UsageError
from auger.paths import git_branch
from auger.settings import load_settings
from conftest_llm import ScriptedLLM
from session_helpers import options, scripted_settings


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> ThreadDatabase:
    """The thread database of a test run once per backend: the SQLite file in `tmp_path`, or a
    fresh database on the session's PostgreSQL server."""
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else ""
    return ThreadDatabase(tmp_path / "home", url)


@pytest.fixture
def store(database: ThreadDatabase) -> Iterator[ThreadStore]:
    database.home.mkdir(exist_ok=True)
    s = ThreadStore.connect(database)
    yield s
    s.close()


async def _checkpoint(database: ThreadDatabase, thread_id: str) -> None:
    """A checkpoint with a pending write saved by LangGraph's own saver for `database`."""
    from langgraph.checkpoint.base import empty_checkpoint

    saver, closer = await open_saver(database)
    try:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        saved = await saver.aput(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
        await saver.aput_writes(saved, [("messages", "zebrafish")], "task-1")
    finally:
        await closer.close()


async def _has_checkpoint(database: ThreadDatabase, thread_id: str) -> bool:
    saver, closer = await open_saver(database)
    try:
        return await saver.aget_tuple({"configurable": {"thread_id": thread_id}}) is not None
    finally:
        await closer.close()


def _turn(store: ThreadStore, tid: str, prompt: str, root: str = "/p", texts: tuple[str, ...] = ()) -> None:
    store.begin_turn(tid, prompt=prompt, cwd=root, root=root, model="local:m")
    msgs = [IndexedMessage("user", prompt), *(IndexedMessage("tool", t) for t in texts)]
    store.record_turn(tid, msgs, message_count=len(msgs), last_message_id=f"{tid}-last")


# -- the store ---------------------------------------------------------------------------------


def test_migrations_are_named_recorded_and_run_once(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    with ThreadStore.open(db) as s:
        assert s.migrations() == [name for name, _ in MIGRATIONS]
    with ThreadStore.open(db) as s:  # reopening applies nothing twice
        assert s.migrations() == [name for name, _ in MIGRATIONS]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
    assert {"auger_migrations", "auger_threads", "auger_messages", "auger_fts"} <= tables


def test_title_is_the_first_prompt_until_renamed(store: ThreadStore) -> None:
    _turn(store, "t1", "  fix   the\nparser  please ")
    _turn(store, "t1", "and now the lexer")
    info = store.get("t1")
    assert info is not None and info.title == "fix the parser please"
    store.rename("t1", "Parser work")
    _turn(store, "t1", "more")
    assert store.get("t1").title == "Parser work"  # type: ignore[union-attr]
    assert make_title("x" * 200).endswith("…") and len(make_title("x" * 200)) == 80
    with pytest.raises(UsageError):
        store.rename("t1", "   ")


def test_list_filters_by_project_newest_first_with_limit(store: ThreadStore) -> None:
    _turn(store, "a1", "one", root="/a")
    _turn(store, "b1", "two", root="/b")
    _turn(store, "a2", "three", root="/a")
    assert [t.id for t in store.list(root="/a")] == ["a2", "a1"]
    assert [t.id for t in store.list(root="/b")] == ["b1"]
    assert [t.id for t in store.list()] == ["a2", "b1", "a1"]
    assert [t.id for t in store.list(limit=1)] == ["a2"]
    _turn(store, "a1", "again", root="/a")  # a turn moves it to the top
    assert store.list(root="/a")[0].id == "a1"
    assert store.list(root="/a")[0].message_count == 1
    d = store.list(root="/a")[0].to_dict()
    assert {"id", "title", "cwd", "model", "created_at", "updated_at", "message_count", "parent_id"} <= set(d)
    assert d["created_at"].endswith("Z")


def test_search_finds_text_of_tool_results_with_snippet(store: ThreadStore) -> None:
    _turn(store, "a1", "list files", root="/a", texts=("README.md\nsetup.py\nzebrafish.txt\n",))
    _turn(store, "b1", "hello", root="/b", texts=("nothing here",))
    hits = store.search("zebrafish")
    assert [h.id for h in hits] == ["a1"]
    assert hits[0].snippet and hits[0].snippet_at
    assert "**zebrafish**" in hits[0].to_dict()["snippet"]  # the JSON form marks hits with **
    assert store.search("zebrafish", root="/b") == []
    assert store.list(search="ZEBRAFISH txt", root="/a")[0].id == "a1"  # every word, any case
    assert store.search('"; drop table -- (') == []  # punctuation is not FTS syntax
    assert store.search("") == []
    assert fts_query("a-b c") == '"a" "b" "c"'


def test_search_hits_are_told_apart_from_markdown_in_the_message(store: ThreadStore) -> None:
    from auger.core.threads.search import snippet_parts

    _turn(store, "a1", "notes", root="/a", texts=("a **bold** claim about zebrafish here",))
    (hit,) = store.search("zebrafish")
    parts = snippet_parts(hit.snippet or "")
    assert [text for text, is_hit in parts if is_hit] == ["zebrafish"]
    assert "".join(text for text, _ in parts) == "a **bold** claim about zebrafish here"


def test_search_snippets_keep_text_after_control_characters(store: ThreadStore) -> None:
    """Tool output is not always text: a NUL cut SQLite's snippet short at it (the words after it
    were lost), and the bytes that mark hits in a snippet (0x02, 0x03) read as false hits."""
    from auger.core.threads.search import snippet_parts

    _turn(store, "a1", "dump", root="/a", texts=("head\x00er zebrafish \x02odd\x03 tail end",))
    (hit,) = store.search("zebrafish")
    parts = snippet_parts(hit.snippet or "")
    assert [text for text, is_hit in parts if is_hit] == ["zebrafish"]
    assert "".join(text for text, _ in parts) == "header zebrafish odd tail end"
    assert [h.id for h in store.search("tail")] == ["a1"]
    # a real program's binary output, as a shell tool's result holds it (undecodable bytes
    # replaced): NULs and 0x02/0x03 bytes from an ELF file, then words after them
    dump = subprocess.run(["head", "-c", "4000", sys.executable], capture_output=True, check=True).stdout
    text = dump.decode("utf-8", errors="replace")
    assert "\x00" in text and ("\x02" in text or "\x03" in text)
    _turn(store, "b1", "cat the interpreter", root="/b", texts=(f"{text}\nquetzal found here",))
    (hit,) = store.search("quetzal")
    assert [t for t, is_hit in snippet_parts(hit.snippet or "") if is_hit] == ["quetzal"]
    assert "found here" in "".join(t for t, _ in snippet_parts(hit.snippet or ""))


def test_resolve_prefix_ambiguous_and_unknown(store: ThreadStore) -> None:
    _turn(store, "abc123", "x")
    _turn(store, "abd456", "y")
    assert store.resolve("abc123") == "abc123"
    assert store.resolve("abc") == "abc123"
    with pytest.raises(ThreadError, match="'ab' is ambiguous: it matches 2 threads"):
        store.resolve("ab")
    with pytest.raises(ThreadError, match="No thread 'zz'"):
        store.resolve("zz")


async def test_delete_removes_checkpoints_writes_and_index(
    store: ThreadStore, database: ThreadDatabase
) -> None:
    store.delete("never-saved")  # before LangGraph has set up its tables
    for tid in ("a1", "b1"):
        await _checkpoint(database, tid)
    _turn(store, "a1", "alpha", texts=("zebrafish",))
    _turn(store, "b1", "beta", texts=("zebrafish",))
    store.delete("a1")
    assert store.get("a1") is None and [h.id for h in store.search("zebrafish")] == ["b1"]
    assert not await _has_checkpoint(database, "a1") and await _has_checkpoint(database, "b1")
    assert store._query("SELECT count(*) FROM auger_messages")[0][0] == 2
    # a thread known only to LangGraph still resolves by prefix
    await _checkpoint(database, "legacy99")
    assert store.resolve("leg") == "legacy99"
    assert store.with_prefix("leg") == ["legacy99"]


def test_prune_deletes_only_old_threads(store: ThreadStore) -> None:
    _turn(store, "old", "old one")
    _turn(store, "new", "new one")
    with store._write() as cur:
        cur.execute("UPDATE auger_threads SET updated_at = ? WHERE id = 'old'", (time.time() - 40 * 86400,))
    assert store.prune(parse_age("30d"), dry_run=True) == ["old"] and store.get("old")
    assert store.prune(parse_age("30d")) == ["old"]
    assert store.get("old") is None and store.get("new") is not None


def test_parse_age_and_git_branch(tmp_path: Path) -> None:
    assert parse_age("30d") == 30 * 86400 and parse_age("12h") == 43200 and parse_age("2w") == 14 * 86400
    assert parse_age("90m") == 5400 and parse_age("7") == 7 * 86400
    with pytest.raises(UsageError):
        parse_age("soon")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert git_branch(tmp_path) == "feature/x"
    assert git_branch(tmp_path / "nope") is None


def test_messages_after_last_indexed_id() -> None:
    class M:
        def __init__(self, i: str) -> None:
            self.id = i

    msgs = [M("a"), M("b"), M("c")]
    assert [m.id for m in messages_after(msgs, "b")] == ["c"]
    assert [m.id for m in messages_after(msgs, None)] == ["a", "b", "c"]
    assert [m.id for m in messages_after(msgs, "c")] == []


# -- a file that is not ours -------------------------------------------------------------------


def test_garbage_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    db.write_bytes(b"this is not a database at all" * 100)
    before = db.read_bytes()
    with pytest.raises(ThreadError, match="not an SQLite database"):
        ThreadStore.open(db)
    assert db.read_bytes() == before


def test_foreign_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(ThreadError, match=r"something else.*invoices"):
        ThreadStore.open(db)
    assert db.read_bytes() == before


def test_a_database_auger_made_before_the_marker_is_recognised_once_and_marked(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    with ThreadStore.open(db) as s:
        _turn(s, "a1", "hello")
    with sqlite3.connect(db) as conn:  # what auger wrote before migration 0006: no marker
        conn.execute("DROP TABLE auger_database")
        conn.execute("DELETE FROM auger_migrations WHERE name = '0006_marker'")
    with ThreadStore.open(db) as s:
        assert s.get("a1") is not None and s.migrations()[-1] == "0006_marker"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM auger_database WHERE name = 'made_by'").fetchone() == (
            "auger",
        )


def test_a_table_auger_did_not_create_in_its_own_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    with ThreadStore.open(db) as s:
        _turn(s, "a1", "hello")
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    before = db.read_bytes()
    with pytest.raises(ThreadError, match=r"holds tables of something else \(invoices\)"):
        ThreadStore.open(db)
    assert db.read_bytes() == before


def test_damaged_sqlite_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    with ThreadStore.open(db) as s:
        _turn(s, "a1", "hello")
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = bytearray(db.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # smash the schema page, keep the header
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    with pytest.raises(ThreadError, match=r"unreadable|malformed|not a database"):
        ThreadStore.open(db)
    assert db.read_bytes() == before


_OPEN_AT = """
import asyncio, sys, time
from pathlib import Path
from auger.core.threads.checkpoints.checkpointer import open_checkpointer
from auger.core.threads.store import ThreadStore
path, start = Path(sys.argv[1]), float(sys.argv[2])
while time.time() < start:
    pass
async def main():
    with ThreadStore.open(path) as store:
        store.begin_turn(sys.argv[3], prompt="hi", cwd="/p", root="/p", model=None)
        saver, conn = await open_checkpointer(path)
        await conn.close()
asyncio.run(main())
"""


def test_processes_creating_the_database_at_once_all_succeed(tmp_path: Path) -> None:
    """Switching a new file to WAL while another process opens it fails at once ("database is
    locked", no busy handler there): every opener must retry, not report a broken database."""
    for attempt in range(3):
        db = tmp_path / f"threads{attempt}.db"
        start = time.time() + 1.0  # all interpreters are up and spinning before the first opens
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _OPEN_AT, str(db), str(start), f"t{i}"],
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(4)
        ]
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
        with ThreadStore.open(db) as s:
            assert sorted(t.id for t in s.list(root=None, limit=10)) == ["t0", "t1", "t2", "t3"]


# -- with a real Session against the scripted server --------------------------------------------


_settings = scripted_settings


async def _send(session, prompt: str) -> None:  # type: ignore[no-untyped-def]
    async for _ in session.send(prompt, options(session, headless=True)):
        pass


async def test_a_turn_is_indexed_from_the_stream_without_reading_the_history(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    settings = _settings(tmp_path, scripted_llm, database_url=database.url)
    shell = {"name": "execute", "args": {"command": "printf '%s%s\\n' quagga fish"}}
    scripted_llm.add({"text": "first"}, {"tool_calls": [shell]}, {"tool_calls": [shell]}, {"text": "done"})
    session = await open_session(settings)
    graph = session.runtime.graph
    reads = 0
    real = graph.aget_state

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal reads
        reads += 1
        return await real(*args, **kwargs)

    try:
        graph.aget_state = counted  # the real graph's reads, counted
        await _send(session, "turn one")  # a thread this Runtime has not indexed yet: read once
        assert reads == 1
        await _send(session, "turn two with tools")
        assert reads == 1  # the index came from what the turn streamed
        graph.aget_state = real
        history = await session.messages()
        store = session.runtime.threads
        info = store.get(session.thread_id)
        assert info is not None and info.message_count == len(history) == 8
        assert store.last_message_id(session.thread_id) == history[-1].id
        assert [h.id for h in store.search("quaggafish")] == [session.thread_id]
        assert [h.id for h in store.search("turn two with tools")] == [session.thread_id]
    finally:
        await session.aclose()


async def test_turns_update_store_and_fork_keeps_turn_one(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    settings = _settings(tmp_path, scripted_llm, database_url=database.url)
    scripted_llm.add(
        {"text": "first answer"},
        {"tool_calls": [{"name": "execute", "args": {"command": "printf '%s%s\\n' zebra fish"}}]},
        {"text": "second answer"},
        {"text": "third answer"},
    )
    session = await open_session(settings)
    try:
        for prompt in ("turn one", "turn two", "turn three"):
            await _send(session, prompt)
        tid = session.thread_id
        store = session.runtime.threads
        info = store.get(tid)
        assert info.title == "turn one" and info.message_count == 8 and info.model == "local:scripted-model"
        assert info.root == str(settings.project_root)
        assert [h.id for h in store.search("zebrafish")] == [tid]
        history = await session.messages()
        assert [m.content for m in await read_history(store.database, tid)] == [m.content for m in history]
        saved = await session.history()  # the port: the saved turns as the events a live turn emits
        assert [e.prompt for e in saved if isinstance(e, ev.TurnStarted)] == [
            "turn one",
            "turn two",
            "turn three",
        ]
        assert [e.text for e in saved if isinstance(e, ev.TurnEnded)] == [
            "first answer",
            "second answer",
            "third answer",
        ]
        [call] = [e for e in saved if isinstance(e, ev.ToolCallStarted)]
        [done] = [e for e in saved if isinstance(e, ev.ToolCallFinished)]
        assert call.name == "execute" and done.call_id == call.call_id and "zebrafish" in done.output
        assert done.status == "success" and saved.index(call) < saved.index(done)
        assert "> turn two" in await session.transcript("text")  # what `auger threads show` prints

        fork_id = await fork_thread(store, tid, 1)
        forked = await read_history(store.database, fork_id)
        assert [(m.type, m.content) for m in forked] == [("human", "turn one"), ("ai", "first answer")]
        assert len(await read_history(store.database, tid)) == 8  # the original is unchanged
        child = store.get(fork_id)
        assert child.parent_id == tid and child.fork_turn == 1 and child.message_count == 2
        assert [c.id for c in store.children(tid)] == [fork_id]
        with pytest.raises(UsageError):
            await fork_thread(store, tid, 4)
        full = await fork_thread(store, tid)
        assert len(await read_history(store.database, full)) == 8 and store.get(full).fork_turn == 3

        # the fork continues on its own: the model sees turn one only
        await session.open_thread(fork_id)
        scripted_llm.add({"text": "fork answer"})
        await _send(session, "fork turn two")
        sent = scripted_llm.requests[-1]["messages"]
        users = [m["content"] for m in sent if m["role"] == "user"]
        assert users[0].endswith("\n\nturn one") and "turn two" not in users and users[-1] == "fork turn two"
        assert store.get(fork_id).message_count == 4
    finally:
        await session.aclose()


async def test_resume_restores_model_history_and_project_newest(
    tmp_path: Path, scripted_llm: ScriptedLLM, database: ThreadDatabase
) -> None:
    settings = _settings(tmp_path, scripted_llm, database_url=database.url)
    scripted_llm.add({"text": "old"}, {"text": "new"})
    session = await open_session(settings)
    try:
        await _send(session, "first thread")
        first = session.thread_id
        await session.open_thread(None)
        await session.set_model("local:other-model")
        await _send(session, "second thread")
        second = session.thread_id
    finally:
        await session.aclose()
    assert resolve_thread(settings, None) == second  # -r: the newest of this project
    assert resolve_thread(settings, first[:10]) == first
    resumed = await open_session(settings, second)
    try:
        assert resumed.model_spec == "local:other-model"
        assert resumed.context_tokens > 0  # from the resume state in the checkpoint
        assert [m.content for m in await resumed.messages()] == ["second thread", "new"]
    finally:
        await resumed.aclose()
    other = load_settings(
        cwd=tmp_path, env={"AUGER_HOME": str(settings.home), "AUGER_DATABASE_URL": database.url}
    )
    with pytest.raises(ThreadError, match="No threads yet"):
        resolve_thread(other, None)


# -- the command's cheap paths ------------------------------------------------------------------


def test_list_and_search_import_no_langgraph(tmp_path: Path) -> None:
    code = (
        "import sys; from auger.cli.threads import run\n"
        "assert run(['list', '--all']) == 0 and run(['list', '--search', 'x', '--json']) == 0\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core', 'deepagents')]"
        "\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "AUGER_HOME": str(tmp_path)}
    with ThreadStore.open(tmp_path / "threads.db") as s:
        _turn(s, "a1", "x marks the spot")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_list_without_a_database_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from auger.cli.threads import run

    assert run(["list", "--json"], cwd=tmp_path, env={"AUGER_HOME": str(tmp_path / "h")}) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert not (tmp_path / "h" / "threads.db").exists()


def test_cli_errors_name_the_thread_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from auger.cli.threads import run

    env = {"AUGER_HOME": str(tmp_path)}
    with ThreadStore.open(tmp_path / "threads.db") as s:
        _turn(s, "abc1", "one")
        _turn(s, "abc2", "two")
    assert run(["rename", "abc", "New"], cwd=tmp_path, env=env) == 2
    assert "'abc' is ambiguous" in capsys.readouterr().err
    assert run(["delete", "zzz"], cwd=tmp_path, env=env) == 2
    assert "No thread 'zzz'" in capsys.readouterr().err
    assert run(["rename", "abc1", "New", "title"], cwd=tmp_path, env=env) == 0
    assert run(["prune", "--older-than", "soon"], cwd=tmp_path, env=env) == 2
    assert run(["list", "--bogus"], cwd=tmp_path, env=env) == 2
    with ThreadStore.open(tmp_path / "threads.db") as s:
        assert s.get("abc1").title == "New title"  # type: ignore[union-attr]


class StuckIndex:
    """A thread index that hangs in `turn_started` or `turn_ended`/`turn_added` until cancelled."""

    def __init__(self) -> None:
        self.hang_start, self.hang_end = True, False
        self.entered, self.never = asyncio.Event(), asyncio.Event()

    async def turn_started(self, thread_id: str, prompt: str, model: str | None) -> None:
        if self.hang_start:
            self.entered.set()
            await self.never.wait()

    async def turn_ended(self, thread_id: str, messages: object, model: str | None) -> None:
        if self.hang_end:
            self.entered.set()
            await self.never.wait()

    def needs_history(self, thread_id: str) -> bool:
        return False

    async def turn_added(self, thread_id: str, added: object, model: str | None) -> None:
        await self.turn_ended(thread_id, added, model)


async def test_a_cancel_during_the_thread_index_still_ends_the_turn(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    import dataclasses

    settings = _settings(tmp_path, scripted_llm)
    scripted_llm.add({"text": "answered"})
    index = StuckIndex()
    async with open_runtime(settings) as runtime:
        session = dataclasses.replace(runtime, index=index).session()
        events = []
        async for event in session.send("first", options(session)):
            events.append(event)
            if event.type == "turn_started":
                session.cancel()
        assert events[-1].type == "turn_ended" and events[-1].reason == "cancelled"
        assert scripted_llm.requests == []

        index.hang_start, index.hang_end = False, True
        index.entered.clear()
        waiter = asyncio.create_task(index.entered.wait())
        waiter.add_done_callback(lambda _t: session.cancel())
        events = [event async for event in session.send("second", options(session))]
        assert events[-1].type == "turn_ended" and events[-1].reason == "done"
        assert events[-1].text == "answered"
        await session.aclose()
