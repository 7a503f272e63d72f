"""One writer per thread: a lease row in the thread database, held while a turn runs.

Two auger processes (or two server requests) resuming one thread at once would both start from
the same checkpoint and the later one's turn would silently replace the other's. So a turn first
takes the thread's lease in `auger_leases` (thread_schema migration 0003): owner, pid, host and an
expiry the holder pushes forward (a heartbeat) while its turn runs. Another turn waits for it to
be released (bounded by the `thread_wait` setting, with a notice) or is refused with
"Thread X is busy in another auger (pid N)". Never silently dropped.

A holder that dies without releasing blocks nobody for long: the lease expires `LEASE_TTL`
seconds after its last heartbeat, and a holder on this host whose pid is gone (kill -9) is
released at once. The lease is a row, not a file lock, so the same SQL works for a database
shared by several machines (a future PostgreSQL store: `INSERT ... ON CONFLICT ... DO UPDATE
... WHERE` is the same statement there); times are the writers' clocks, so machines sharing one
database need synchronised clocks (NTP).

The rows and their rules live here (standard library only: `auger threads delete` asks who holds
a thread); a Session's side — waiting, the heartbeat — is `auger.core.threads.writer_lease`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass

from auger.errors import ThreadError

log = logging.getLogger("auger.threads")
LEASE_TTL = 30.0  # seconds a lease lives after its last heartbeat (auger.core.threads.writer_lease beats)


class ThreadBusyError(ThreadError):
    """Another auger holds the thread (exit 1: try again when its turn is over)."""

    exit_code = 1


def hostname() -> str:
    return os.uname().nodename


def _pid_namespace() -> str:
    """Which pid namespace this process is in (containers sharing a host name do not share pids)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


@dataclass(frozen=True)
class Holder:
    owner: str
    pid: int
    host: str
    pid_ns: str
    expires_at: float

    def here(self) -> bool:
        return self.host == hostname() and self.pid_ns == _pid_namespace()

    def mine(self) -> bool:
        """The holder is this process."""
        return self.here() and self.pid == os.getpid()

    def dead(self) -> bool:
        """True when the holder is a process of this host that no longer exists."""
        if not self.here() or self.pid == os.getpid():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False  # alive, another user's
        return False

    def describe(self) -> str:
        return f"pid {self.pid}" + ("" if self.here() else f" on {self.host}")


_CLAIM = (
    "INSERT INTO auger_leases (thread_id, owner, pid, host, pid_ns, acquired_at, expires_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE SET"
    " owner = excluded.owner, pid = excluded.pid, host = excluded.host, pid_ns = excluded.pid_ns,"
    " acquired_at = excluded.acquired_at, expires_at = excluded.expires_at"
    " WHERE auger_leases.owner = excluded.owner OR auger_leases.expires_at < excluded.acquired_at"
)
_HOLDER = "SELECT owner, pid, host, pid_ns, expires_at FROM auger_leases WHERE thread_id = ?"


def claim(cur: sqlite3.Cursor, thread_id: str, owner: str, ttl: float = LEASE_TTL) -> Holder | None:
    """Take (or renew) the lease inside a write transaction; None when taken, else who holds it.
    A holder whose process is gone from this host is removed first."""
    now = time.time()
    row = (thread_id, owner, os.getpid(), hostname(), _pid_namespace(), now, now + ttl)
    for _ in range(2):
        cur.execute(_CLAIM, row)
        found = cur.execute(_HOLDER, (thread_id,)).fetchone()
        holder = Holder(*found) if found else None
        if holder is None or holder.owner == owner:
            return None
        if not holder.dead():
            return holder
        log.info("thread %s: releasing the lease of dead pid %s", thread_id, holder.pid)
        cur.execute("DELETE FROM auger_leases WHERE thread_id = ? AND owner = ?", (thread_id, holder.owner))
    return holder


def release(cur: sqlite3.Cursor, thread_id: str, owner: str) -> None:
    cur.execute("DELETE FROM auger_leases WHERE thread_id = ? AND owner = ?", (thread_id, owner))


def holder(conn: sqlite3.Connection | sqlite3.Cursor, thread_id: str) -> Holder | None:
    """Who holds the thread now (an expired lease counts as nobody)."""
    found = conn.execute(_HOLDER, (thread_id,)).fetchone()
    lease = Holder(*found) if found else None
    return lease if lease is not None and lease.expires_at >= time.time() and not lease.dead() else None
