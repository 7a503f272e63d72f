"""Where threads live, and the one interface the ThreadStore speaks to it through.

`ThreadDatabase` names the place: the embedded SQLite file `$AUGER_HOME/threads.db` (the
default), or a PostgreSQL server when `database_url = "postgresql://…"` (config key, also
`AUGER_DATABASE_URL`). The checkpointer
(`auger.core.threads.checkpoints.checkpointer.open_saver`) and the thread store
(`auger.core.threads.store.ThreadStore.connect`) both open it from the same `ThreadDatabase`.

`ThreadBackend` is what differs between the two: connecting and migrating, a write transaction
whose cursor takes SQLite's `?` placeholders on both (so the ThreadStore's statements — and the
writer lease's, `auger.core.threads.lease` — are written once), full-text search, and the handling
of LangGraph's own tables (their names and columns differ: `writes` in SQLite,
`checkpoint_writes` + `checkpoint_blobs` on PostgreSQL). `auger.core.threads.sqlite` and
`auger.core.threads.postgres.backend` implement it. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from auger.errors import ConfigError, ThreadError

if TYPE_CHECKING:
    from auger.core.threads.checkpoints.collapse import Marks, SeedCheck
    from auger.core.threads.search import IndexedMessage
    from auger.settings import Settings

SCHEMES = ("postgresql://", "postgres://")
SearchRow = tuple[tuple[Any, ...], str, float | None]  # (thread row, snippet, its message's time)


@dataclass(frozen=True)
class ThreadDatabase:
    """The SQLite file under `home`, or the PostgreSQL database at `url` (when set)."""

    home: Path
    url: str = ""
    file: Path | None = None  # another SQLite file than `home/threads.db` (tests, benches)

    @property
    def postgres(self) -> bool:
        return bool(self.url)

    @property
    def path(self) -> Path:
        """The SQLite file (unused when `url` is set)."""
        return self.file or self.home / "threads.db"


def thread_database(settings: Settings) -> ThreadDatabase:
    """The settings' thread database; a `database_url` that is not PostgreSQL's is a ConfigError."""
    return database_at(settings.home, str(settings.get("database_url") or ""))


def database_at(home: Path, url: str) -> ThreadDatabase:
    url = url.strip()
    if url and not url.startswith(SCHEMES):
        raise ConfigError(
            f"database_url {url.split('://')[0]!r}… is not a PostgreSQL URL.",
            hint='Use database_url = "postgresql://user:password@host:5432/dbname", or remove it'
            " for the SQLite file in AUGER_HOME.",
        )
    return ThreadDatabase(home, url)


class ThreadBackend(Protocol):
    """One connection to a thread database. The ThreadStore serialises calls (one lock)."""

    location: str  # the file, or the URL without its password
    input_filter: str  # SQL: this `checkpoints` row is a user turn's input (LangGraph's metadata)

    def reader(self) -> Any:
        """Something with `execute(sql, params)` (`?` placeholders) for a read outside a transaction."""
        ...

    def transaction(self) -> AbstractContextManager[Any]:
        """One write transaction; its cursor takes `?` placeholders and has `rowcount`."""
        ...

    def close(self) -> None: ...

    def has_checkpoints(self) -> bool:
        """LangGraph has set up its tables here."""
        ...

    def search_rows(self, text: str, *, root: str | None, limit: int | None) -> list[SearchRow]: ...

    def index_messages(
        self, cur: Any, thread_key: int, messages: Sequence[IndexedMessage], at: float
    ) -> None:
        """Store the messages' text for search, inside the caller's transaction."""
        ...

    def delete_checkpoints(self, cur: Any, thread_id: str) -> None: ...

    def copy_turns(self, cur: Any, source_id: str, new_id: str, at_turn: int | None) -> int:
        """A fork's checkpoints (`auger.core.threads.checkpoints.rows`); returns the turns copied."""
        ...

    def truncate_turns(self, cur: Any, thread_id: str, keep: int) -> str:
        """Cut the thread after user turn `keep` (`auger.core.threads.checkpoints.rows.truncate_turns`);
        returns the first checkpoint id removed."""
        ...

    def thread_artifacts(self, cur: Any, folder: Path, thread_id: str) -> list[Path]:
        """Offloaded files only this thread names (`auger.core.threads.artifacts`)."""
        ...

    def collapse(
        self,
        cur: Any,
        thread_id: str,
        marks: Marks,
        delta_channels: Sequence[str],
        holds_seed: SeedCheck,
        *,
        settled: bool,
    ) -> Marks:
        """Drop a finished turn's intermediate checkpoints (`auger.core.threads.checkpoints.collapse`)."""
        ...

    def vacuum(self) -> tuple[int, int]:
        """Give deleted rows' space back: (bytes before, after)."""
        ...


def open_backend(db: ThreadDatabase) -> ThreadBackend:
    """Connect to `db` and bring its auger tables up to date (ThreadError / ConfigError otherwise)."""
    if db.postgres:
        from auger.core.threads.postgres.backend import PostgresBackend

        return PostgresBackend.open(db.url)
    from auger.core.threads.sqlite import SqliteBackend

    return SqliteBackend.open(db.path)


def failure(db: ThreadDatabase, exc: BaseException, thread_id: str) -> ThreadError | None:
    """The ThreadError for `exc` when it is the thread database failing under a turn (SQLite
    locked past the busy timeout, PostgreSQL gone); None for any other error."""
    if type(exc).__module__.partition(".")[0] not in ("sqlite3", "psycopg", "psycopg_pool"):
        return None
    resume = f"then resume the thread (auger -r {thread_id})." if thread_id else "then try again."
    reason = " ".join(str(exc).split())[:300] or type(exc).__name__
    if db.postgres:
        from auger.core.threads.postgres.db import shown_url

        return ThreadError(
            f"The thread database {shown_url(db.url)} failed during the turn ({reason}); the turn "
            "stopped and its last step may not be saved.",
            hint=f"Check that the PostgreSQL server is running and reachable, {resume}",
        )
    if "locked" in reason:
        from auger.core.threads.checkpoints.checkpointer import locked_error

        return locked_error(db.path, ", then stopped the turn; its last step is not saved", resume)
    return ThreadError(
        f"The thread database {db.path} failed during the turn ({reason}); the turn stopped.",
        hint=f"Check the disk (space, permissions), {resume}",
    )
