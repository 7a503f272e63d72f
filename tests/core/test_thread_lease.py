"""The writer lease of a thread (auger.core.threads.lease) on a real SQLite file: one owner at a
time, an expired or dead holder does not block, and real processes racing for it take turns."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.threads import lease as thread_lease
from auger.core.threads.lease import ThreadBusyError
from auger.core.threads.store import ThreadStore
from auger.core.threads.writer_lease import WriterLease


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ThreadStore]:
    s = ThreadStore.open(tmp_path / "threads.db")
    yield s
    s.close()


def _plant(db: Path, thread_id: str, *, pid: int, host: str, expires_in: float) -> None:
    """A lease row as another process (or machine) would have left it."""
    conn = sqlite3.connect(db)
    now = time.time()
    with conn:
        conn.execute(
            "INSERT INTO auger_leases VALUES (?, ?, ?, ?, ?, ?, ?)",
            (thread_id, f"{host}:{pid}:x", pid, host, thread_lease._pid_namespace(), now, now + expires_in),
        )
    conn.close()


def test_one_owner_at_a_time_and_release_frees_it(store: ThreadStore) -> None:
    assert store.claim_lease("t1", "a") is None
    assert store.claim_lease("t1", "a") is None  # the owner renews
    busy = store.claim_lease("t1", "b")
    assert busy is not None and busy.owner == "a" and busy.pid == os.getpid()
    assert store.lease_holder("t1") is not None and store.lease_holder("t2") is None
    store.release_lease("t1", "b")  # not b's: nothing happens
    assert store.claim_lease("t1", "b") is not None
    store.release_lease("t1", "a")
    assert store.claim_lease("t1", "b") is None


def test_an_expired_lease_of_another_machine_is_taken_over(store: ThreadStore) -> None:
    _plant(store.database.path, "t1", pid=4242, host="elsewhere", expires_in=60)
    busy = store.claim_lease("t1", "me")
    assert busy is not None and busy.describe() == "pid 4242 on elsewhere"  # alive as far as we know
    conn = sqlite3.connect(store.database.path)
    with conn:  # no heartbeat for LEASE_TTL seconds: that machine's auger is gone
        conn.execute("UPDATE auger_leases SET expires_at = ? WHERE thread_id = 't1'", (time.time() - 1,))
    conn.close()
    assert store.lease_holder("t1") is None
    assert store.claim_lease("t1", "me") is None


def test_a_dead_holder_on_this_host_is_released_at_once(store: ThreadStore) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    _plant(store.database.path, "t1", pid=proc.pid, host=thread_lease.hostname(), expires_in=60)
    try:
        busy = store.claim_lease("t1", "me")
        assert busy is not None and busy.describe() == f"pid {proc.pid}"
    finally:
        proc.kill()  # kill -9: it never releases
        proc.wait()
    assert store.claim_lease("t1", "me") is None  # no 30 s wait for the expiry


async def test_acquire_waits_with_one_notice_then_refuses(store: ThreadStore) -> None:
    holder, waiter = WriterLease(store), WriterLease(store)
    assert await holder.claim_now("t1") is None
    notices: list[str] = []
    with pytest.raises(ThreadBusyError) as refused:
        await waiter.acquire("t1", 0.3, notices.append)
    assert f"Thread t1 is busy in another auger (pid {os.getpid()})" in str(refused.value)
    assert len(notices) == 1 and "waiting up to 0.3 s" in notices[0]
    task = asyncio.create_task(waiter.acquire("t1", 30, notices.append))
    await holder.detach()
    await task  # it got the lease once the holder let go
    assert waiter.thread_id == "t1" and store.claim_lease("t1", holder.owner) is not None
    await waiter.detach()


RACER = """
import asyncio, sys, time
from pathlib import Path
from auger.core.threads.writer_lease import WriterLease
from auger.core.threads.store import ThreadStore

async def main():
    store = ThreadStore.open(Path(sys.argv[1]))
    lease = WriterLease(store)
    for _ in range(int(sys.argv[3])):
        await lease.acquire("shared", 60, lambda _: None)
        with open(sys.argv[2], "a") as log:
            log.write(f"start {sys.argv[4]}\\n")
        time.sleep(0.02)  # the "turn"
        with open(sys.argv[2], "a") as log:
            log.write(f"end {sys.argv[4]}\\n")
        await lease.detach()
    store.close()

asyncio.run(main())
"""


def test_racing_processes_never_hold_the_lease_together(tmp_path: Path) -> None:
    db, log = tmp_path / "threads.db", tmp_path / "turns.log"
    ThreadStore.open(db).close()
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(db), str(log), "8", name]) for name in "abc"]
    assert [p.wait(120) for p in procs] == [0, 0, 0]
    lines = log.read_text().splitlines()
    assert len(lines) == 48
    for start, end in zip(lines[::2], lines[1::2], strict=True):  # every turn ran alone
        assert start.startswith("start ") and end == "end " + start.removeprefix("start ")
