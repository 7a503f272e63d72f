"""ThreadStore: auger's own view of the conversations in `$AUGER_HOME/threads.db`.

LangGraph owns `checkpoints` and `writes` (the conversation itself); auger owns the `auger_*`
tables beside them (`auger.core.threads.schema`: one row per thread in `auger_threads`, message
text for full-text search in `auger_messages` + `auger_fts`, see `auger.core.threads.search`).
A fork copies LangGraph's rows verbatim (`auger.core.threads.checkpoints.rows`).

Only the standard library is imported here, so `auger threads list/search/rename/delete/prune`
start fast. Anything that needs the message objects lives in `auger.core.threads.history`.
Connections use WAL and a busy timeout; every write is one short `BEGIN IMMEDIATE` transaction.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.backends.mounts import artifacts_dir
from auger.core.rewind import records as rewind_records
from auger.core.threads import lease as thread_lease
from auger.core.threads import search as thread_search
from auger.core.threads.backend import ThreadBackend, ThreadDatabase, open_backend, thread_database
from auger.core.threads.checkpoints import collapse as thread_collapse
from auger.core.threads.schema import THREAD_COLUMNS
from auger.core.threads.search import IndexedMessage
from auger.errors import ThreadError, UsageError

if TYPE_CHECKING:
    from auger.settings import Settings

TITLE_CHARS = 80


@dataclass(frozen=True)
class ThreadInfo:
    id: str
    title: str
    cwd: str
    root: str
    git_branch: str | None
    model: str | None
    created_at: float
    updated_at: float
    message_count: int
    parent_id: str | None
    fork_turn: int | None
    snippet: str | None = None  # search results: the newest matching message, hits marked (thread_search)
    snippet_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of `auger threads list --json` (times as ISO 8601 UTC)."""
        out = asdict(self)
        out["project"] = out.pop("root")
        for key in ("created_at", "updated_at", "snippet_at"):
            out[key] = iso(out[key]) if out[key] else None  # 0: not saved yet
        if self.snippet is None:
            del out["snippet"], out["snippet_at"]
        else:
            out["snippet"] = thread_search.marked_snippet(self.snippet)  # hits as **word**
        return out


@dataclass(frozen=True)
class LiveThread(ThreadInfo):
    """A thread as a front end sees it: what is saved, plus the state of the agent serving it
    (whether a turn runs, the approval mode a server applies, the context size)."""

    busy: bool = False
    mode: str | None = None
    context_tokens: int | None = None
    context_window: int | None = None  # of the model the thread uses now, as the agent's config says

    @classmethod
    def of(cls, info: ThreadInfo) -> LiveThread:
        return cls(**{f.name: getattr(info, f.name) for f in dataclasses.fields(ThreadInfo)})

    @classmethod
    def blank(cls, thread_id: str, settings: Settings) -> LiveThread:
        """A thread with no turn saved yet."""
        root = str(settings.project_root)
        return cls(thread_id, "", str(settings.cwd), root, None, None, 0.0, 0.0, 0, None, None)

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> LiveThread:
        """Rebuild from the wire shape (`to_dict`)."""
        return cls(
            id=str(row["id"]),
            title=row.get("title") or "",
            cwd=row.get("cwd") or "",
            root=row.get("project") or "",
            git_branch=row.get("git_branch"),
            model=row.get("model"),
            created_at=_timestamp(row.get("created_at")),
            updated_at=_timestamp(row.get("updated_at")),
            message_count=int(row.get("message_count") or 0),
            parent_id=row.get("parent_id"),
            fork_turn=row.get("fork_turn"),
            snippet=thread_search.unmarked(row["snippet"]) if row.get("snippet") is not None else None,
            snippet_at=_timestamp(row["snippet_at"]) if row.get("snippet_at") else None,
            busy=bool(row.get("busy")),
            mode=row.get("mode"),
            context_tokens=row.get("context_tokens"),
            context_window=row.get("context_window"),
        )


def _timestamp(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return 0.0


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def make_title(prompt: str) -> str:
    """A title from the first prompt: whitespace collapsed, cut at TITLE_CHARS."""
    text = " ".join(prompt.split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "": 86400}


def parse_age(text: str) -> float:
    """'30d', '12h', '2w', '90m', '45s' (a bare number means days) -> seconds."""
    match = _AGE.match(text)
    if not match:
        raise UsageError(f"Cannot read the age {text!r}.", hint="Use e.g. 30d, 12h, 2w, 90m.")
    return float(match[1]) * _UNIT[match[2]]


class ThreadStore:
    """Thread metadata and search index over one thread database (`auger.core.threads.backend`:
    the SQLite file or PostgreSQL). Thread-safe (one lock, one connection)."""

    def __init__(self, backend: ThreadBackend, database: ThreadDatabase) -> None:
        self.backend = backend
        self.database = database
        self.location = backend.location  # for messages: the file, or the URL without its password
        self._lock = threading.Lock()

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> ThreadStore:
        """The SQLite file at `path` (creating and migrating it). A corrupt or foreign file is a
        ThreadError."""
        return cls.connect(ThreadDatabase(path.parent, file=path))

    @classmethod
    def connect(cls, database: ThreadDatabase) -> ThreadStore:
        """Open `database` (creating and migrating auger's tables)."""
        return cls(open_backend(database), database)

    @property
    def home(self) -> Path:
        """The auger folder (offloaded tool results live under it, whatever the database)."""
        return self.database.home

    def migrations(self) -> builtins.list[str]:
        """The names of the migrations applied, in order."""
        return [r[0] for r in self._query("SELECT name FROM auger_migrations ORDER BY name")]

    def close(self) -> None:
        with self._lock:
            self.backend.close()

    def __enter__(self) -> ThreadStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        with self._lock, self.backend.transaction() as cur:
            yield cur

    def _query(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[Any]:
        with self._lock:
            return self.backend.reader().execute(sql, params).fetchall()

    # -- reading -----------------------------------------------------------------------------
    def get(self, thread_id: str) -> ThreadInfo | None:
        rows = self._query(f"SELECT {THREAD_COLUMNS} FROM auger_threads WHERE id = ?", (thread_id,))
        return ThreadInfo(*rows[0]) if rows else None

    def list(
        self, *, root: str | None = None, search: str | None = None, limit: int | None = 50
    ) -> builtins.list[ThreadInfo]:
        """Threads newest first; `root` = one project (None: all); `search` = full-text filter."""
        if search is not None:
            return self.search(search, root=root, limit=limit)
        where, params = ("WHERE root = ?", [root]) if root is not None else ("", [])
        page = "" if limit is None else f" LIMIT {int(limit)}"
        rows = self._query(
            f"SELECT {THREAD_COLUMNS} FROM auger_threads {where} ORDER BY updated_at DESC, key DESC{page}",
            params,
        )
        return [ThreadInfo(*r) for r in rows]

    def search(
        self, text: str, *, root: str | None = None, limit: int | None = 50
    ) -> builtins.list[ThreadInfo]:
        """Threads whose messages contain every word of `text`, newest first, each with a snippet
        of its newest matching message (hits marked with **)."""
        with self._lock:
            rows = self.backend.search_rows(text, root=root, limit=limit)
        return [dataclasses.replace(ThreadInfo(*i), snippet=snip, snippet_at=at) for i, snip, at in rows]

    def children(self, thread_id: str) -> builtins.list[ThreadInfo]:
        """Threads forked from `thread_id`, oldest first."""
        rows = self._query(
            f"SELECT {THREAD_COLUMNS} FROM auger_threads WHERE parent_id = ? ORDER BY created_at",
            (thread_id,),
        )
        return [ThreadInfo(*r) for r in rows]

    def newest(self, root: str) -> str | None:
        rows = self._query(
            "SELECT id FROM auger_threads WHERE root = ? ORDER BY updated_at DESC LIMIT 1", (root,)
        )
        return rows[0][0] if rows else None

    def resolve(self, ref: str) -> str:
        """A full thread id from an id or a unique prefix of one (ThreadError otherwise)."""
        ref = ref.strip()
        if not ref:
            raise ThreadError("No thread id given.")
        hi = ref + "\U0010ffff"
        ids = {r[0] for r in self._query("SELECT id FROM auger_threads WHERE id >= ? AND id < ?", (ref, hi))}
        ids.update(self.with_prefix(ref))  # threads from before the index, or never indexed
        if ref in ids:
            return ref
        if not ids:
            raise ThreadError(f"No thread {ref!r}.", hint="See `auger threads list --all`.")
        if len(ids) > 1:
            shown = ", ".join(sorted(ids)[:5]) + (", …" if len(ids) > 5 else "")
            raise ThreadError(
                f"Thread id {ref!r} is ambiguous: it matches {len(ids)} threads ({shown}).",
                hint="Give more characters of the id.",
            )
        return ids.pop()

    def last_message_id(self, thread_id: str) -> str | None:
        rows = self._query("SELECT last_message_id FROM auger_threads WHERE id = ?", (thread_id,))
        return rows[0][0] if rows else None

    def with_prefix(self, prefix: str) -> builtins.list[str]:
        """Ids of the threads with checkpoints whose id starts with `prefix`."""
        sql = "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id >= ? AND thread_id < ?"
        with self._lock:
            if not self.backend.has_checkpoints():
                return []
            return [r[0] for r in self.backend.reader().execute(sql, (prefix, prefix + "\U0010ffff"))]

    # -- writing -----------------------------------------------------------------------------
    def begin_turn(
        self,
        thread_id: str,
        *,
        prompt: str,
        cwd: str,
        root: str,
        model: str | None,
        git_branch: str | None = None,
    ) -> float | None:
        """Register the thread (title = first prompt) before its turn runs, so even a turn killed
        half-way leaves a thread to list and resume. Returns the row's `updated_at` before this
        (None: a new thread), which tells whether anything touched it since a known write."""
        now = time.time()
        with self._write() as cur:
            before = cur.execute("SELECT updated_at FROM auger_threads WHERE id = ?", (thread_id,)).fetchone()
            cur.execute(
                "INSERT INTO auger_threads (id, title, cwd, root, git_branch, model, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE"
                " SET updated_at = excluded.updated_at,"
                " model = coalesce(excluded.model, auger_threads.model), git_branch = excluded.git_branch,"
                " title = CASE WHEN auger_threads.title = '' THEN excluded.title"
                " ELSE auger_threads.title END",
                (thread_id, make_title(prompt), cwd, root, git_branch, model, now, now),
            )
        return None if before is None else float(before[0])

    def record_turn(
        self,
        thread_id: str,
        new_messages: Sequence[IndexedMessage],
        *,
        message_count: int,
        last_message_id: str | None,
        model: str | None = None,
    ) -> float:
        """After a turn: message count, model, time, and the new messages' text for search.
        Returns the `updated_at` written."""
        now = time.time()
        with self._write() as cur:
            (key,) = cur.execute(
                "INSERT INTO auger_threads (id, created_at, updated_at, message_count, last_message_id,"
                " model) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                " updated_at = excluded.updated_at, message_count = excluded.message_count,"
                " last_message_id = excluded.last_message_id,"
                " model = coalesce(excluded.model, auger_threads.model) RETURNING key",
                (thread_id, now, now, message_count, last_message_id, model),
            ).fetchone()
            self.backend.index_messages(cur, key, new_messages, now)
        return now

    def touch(self, thread_id: str) -> None:
        """The thread was opened (resumed): it counts as used now, so `auger -r` with no id comes
        back to it even when no turn ran before quitting."""
        with self._write() as cur:
            cur.execute("UPDATE auger_threads SET updated_at = ? WHERE id = ?", (time.time(), thread_id))

    def rename(self, thread_id: str, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            raise UsageError("A thread title cannot be empty.")
        now = time.time()
        with self._write() as cur:
            cur.execute(
                "INSERT INTO auger_threads (id, title, renamed, created_at, updated_at)"
                " VALUES (?, ?, 1, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title, renamed = 1",
                (thread_id, title, now, now),
            )

    def delete(self, thread_id: str) -> int:
        """Remove the thread everywhere: LangGraph's checkpoints and writes, our rows and index, and
        the files deepagents offloaded for it alone (`auger.core.threads.artifacts`). Returns how
        many such files were removed."""
        with self._write() as cur:
            files = self.backend.thread_artifacts(cur, artifacts_dir(self.home), thread_id)
            self._delete(cur, thread_id)
        for path in files:
            path.unlink(missing_ok=True)
        return len(files)

    def _delete(self, cur: Any, thread_id: str) -> None:
        self.backend.delete_checkpoints(cur, thread_id)
        rewind_records.delete_thread(cur, thread_id)  # its snapshots are collected by housekeeping
        thread_search.reset_index(cur, thread_id)  # its indexed messages (before its row goes)
        cur.execute("DELETE FROM auger_threads WHERE id = ?", (thread_id,))
        cur.execute("DELETE FROM auger_leases WHERE thread_id = ?", (thread_id,))

    def prune(
        self, older_than: float, *, root: str | None = None, dry_run: bool = False
    ) -> builtins.list[str]:
        """Delete threads not updated for `older_than` seconds; returns their ids."""
        cutoff = time.time() - older_than
        sql = "SELECT id FROM auger_threads WHERE updated_at < ?" + (" AND root = ?" if root else "")
        ids = [r[0] for r in self._query(sql, (cutoff, root) if root else (cutoff,))]
        if ids and not dry_run:
            with self._write() as cur:
                for thread_id in ids:
                    self._delete(cur, thread_id)
        return ids

    def collapse(
        self,
        thread_id: str,
        delta_channels: Sequence[str],
        holds_seed: thread_collapse.SeedCheck,
        *,
        settled: bool,
    ) -> None:
        """Drop the intermediate checkpoints of the thread's turns since the last collapse
        (`auger.core.threads.checkpoints.collapse`); `settled`: nothing is pending (the turn finished)."""
        with self._write() as cur:
            row = cur.execute(
                "SELECT collapsed_through, seed_checkpoint FROM auger_threads WHERE id = ?", (thread_id,)
            ).fetchone()
            before = thread_collapse.Marks(*(row or ()))
            marks = self.backend.collapse(cur, thread_id, before, delta_channels, holds_seed, settled=settled)
            if row is not None:
                cur.execute(
                    "UPDATE auger_threads SET collapsed_through = ?, seed_checkpoint = ? WHERE id = ?",
                    (marks.through, marks.seed, thread_id),
                )

    def vacuum(self) -> tuple[int, int]:
        """Give the space of deleted rows back: (bytes before, after). ThreadError when another
        auger keeps the database busy."""
        with self._lock:
            return self.backend.vacuum()

    def truncate(self, thread_id: str, keep: int) -> None:
        """Cut the conversation after user turn `keep` (0: nothing left), in place: checkpoints,
        the turns' rewind records, and the search index (rebuilt by `threads.index.truncate_thread`).
        A collapse mark that was cut off is cleared (the next collapse walks the chain left)."""
        with self._write() as cur:
            cut = self.backend.truncate_turns(cur, thread_id, keep)
            rewind_records.delete_from(cur, thread_id, cut)
            thread_search.reset_index(cur, thread_id)
            for column in ("collapsed_through", "seed_checkpoint"):
                cur.execute(
                    f"UPDATE auger_threads SET {column} = NULL WHERE id = ? AND {column} >= ?",
                    (thread_id, cut),
                )

    # -- the rewind records (auger.core.rewind.records) ---------------------------------------
    @contextlib.contextmanager
    def records(self, *, write: bool = False) -> Iterator[rewind_records.Db]:
        """The rewind records' view of this database: one write transaction (`write`), or reads."""
        with self._lock:
            has = self.backend.has_checkpoints()
            with (
                self.backend.transaction() if write else contextlib.nullcontext(self.backend.reader()) as cur
            ):
                yield rewind_records.Db(cur, self.backend.input_filter, has)

    # -- the writer lease (auger.core.threads.lease) ------------------------------------------
    def claim_lease(self, thread_id: str, owner: str) -> thread_lease.Holder | None:
        """Take or renew the thread's lease for `owner`; None when held now, else the other holder."""
        with self._write() as cur:
            return thread_lease.claim(cur, thread_id, owner)

    def release_lease(self, thread_id: str, owner: str) -> None:
        with self._write() as cur:
            thread_lease.release(cur, thread_id, owner)

    def lease_holder(self, thread_id: str) -> thread_lease.Holder | None:
        """The live holder of the thread's lease (a running turn in some auger), else None."""
        with self._lock:
            return thread_lease.holder(self.backend.reader(), thread_id)

    # -- forks -------------------------------------------------------------------------------
    def fork(self, source_id: str, at_turn: int | None = None, *, new_id: str) -> int:
        """Copy the source's checkpoints up to the end of user turn `at_turn` (None: all) into
        thread `new_id` and record the parent. Returns the fork's turn count. The copy is
        LangGraph's own rows verbatim, so the fork carries the state (messages, todos, model) as it
        was at that point; the source is not touched."""
        with self._write() as cur:
            at_turn = self.backend.copy_turns(cur, source_id, new_id, at_turn)
            rewind_records.copy_to_fork(cur, source_id, new_id)  # turns 1..at_turn can be rewound
            src = cur.execute(
                "SELECT title, cwd, root, git_branch, model FROM auger_threads WHERE id = ?", (source_id,)
            ).fetchone() or ("", "", "", None, None)
            now = time.time()
            cur.execute(
                "INSERT INTO auger_threads (id, title, cwd, root, git_branch, model, created_at, updated_at,"
                " parent_id, fork_turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (new_id, *src, now, now, source_id, at_turn),
            )
        return at_turn


def resolve_thread(settings: Settings, ref: str | None) -> str:
    """`auger -r [ID]`: None or "" = the thread last used in this project (a turn ran in it, or it
    was resumed); else an id or unique prefix."""
    with ThreadStore.connect(thread_database(settings)) as store:
        if ref:
            return store.resolve(ref)
        newest = store.newest(str(settings.project_root))
    if newest is None:
        raise ThreadError(
            f"No threads yet in this project ({settings.project_root}).",
            hint="Start one with `auger`, or see `auger threads list --all`.",
        )
    return newest
