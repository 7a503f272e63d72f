"""One Session per active thread, all over ONE compiled graph and ONE checkpointer connection.

`create_session()` runs once at start (checkpointer, agent, thread store and its hooks, MCP);
every other thread gets a light Session sharing those (`Session.sibling`): no new graph, no
new SQLite connection. Measured in bench/bench_serve.py: a shared-graph Session costs microseconds,
a fresh `create_session()` tens of milliseconds and ~0.5 MB, and concurrent turns run as fast.

A thread is busy while a run holds its `Lease`; a second run gets 409. Idle sessions past
`MAX_IDLE` are dropped (least recently used first) — their history stays in the checkpointer.
Thread metadata (title, times, counts, search) comes from the ThreadStore (`auger.core.threads`),
so threads served here show in `auger threads list` and the TUI's picker.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from auger.core.context import MODES
from auger.errors import AugerError, ThreadError
from auger.server.http import ApiError

if TYPE_CHECKING:
    from auger.core.session import Session
    from auger.core.thread_lease import Holder
    from auger.core.threads import ThreadStore
    from auger.settings import Settings

MAX_IDLE = 256
EPHEMERAL_PREFIX = "~tmp-"  # "~" is not allowed in client thread ids: no collisions


class Lease:
    """A thread reserved for one run; `release()` is idempotent and synchronous. The run holds
    the thread's writer lease in the database from the start (`ThreadPool.lease`); a turn that
    ran releases it as it ends, and `release()` gives back one no turn took over (a run cut short
    or cancelled before it started)."""

    def __init__(self, pool: ThreadPool, session: Session, on_release: Callable[[], Any] | None) -> None:
        self.pool, self.session, self._on_release = pool, session, on_release
        self.released = False
        self.cancelled = False  # a cancel that came before the turn started
        self.claimed = False  # the writer lease in the database was taken for this run

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        if self.pool._running.get(self.session.thread_id) is self:
            del self.pool._running[self.session.thread_id]
        writer = self.session.writer
        if self.claimed and writer is not None and writer.thread_id is not None and not self.session.busy:
            task = asyncio.ensure_future(writer.detach())
            self.pool._releasing.add(task)
            task.add_done_callback(self.pool._releasing.discard)
        if self._on_release is not None:
            self._on_release()


class ThreadPool:
    def __init__(self, base: Session, settings: Settings, mode: str) -> None:
        self.base = base
        self.settings = settings
        self.mode = mode
        self.graph = base.graph
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._running: dict[str, Lease] = {}
        self._releasing: set[asyncio.Task[None]] = set()

    @classmethod
    async def open(cls, settings: Settings, mode: str, *, mcp: Any = None, model: Any = None) -> ThreadPool:
        from auger.core.session import create_session

        base = await create_session(settings, mcp=mcp, model=model)
        pool = cls(base, settings, mode)
        await pool.purge_ephemeral()
        return pool

    @property
    def store(self) -> ThreadStore:
        return self.base.threads  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        tasks: list[asyncio.Task[None]] = []
        for session in list(self._sessions.values()):
            if session.busy and session._task is not None:
                session.cancel()
                tasks.append(session._task)
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        self._sessions.clear()
        with contextlib.suppress(Exception):
            await self.purge_ephemeral()
        await self.base.aclose()

    # -- sessions -------------------------------------------------------------------------
    def _session_for(self, thread_id: str) -> Session:
        """A Session on `thread_id` sharing the base session's graph, connection, store and hooks.
        It never waits for a thread another auger holds: `lease` answers 409 for that."""
        session = self.base.sibling(thread_id)
        session.mode = self.mode
        session.thread_wait = 0.0
        return session

    def _remember(self, session: Session) -> Session:
        self._sessions[session.thread_id] = session
        self._sessions.move_to_end(session.thread_id)
        while len(self._sessions) > MAX_IDLE:
            idle = (k for k in self._sessions if not self.busy(k))
            victim = next(idle, None)
            if victim is None:
                break
            del self._sessions[victim]
        return session

    async def _stored(self, thread_id: str) -> bool:
        if await asyncio.to_thread(self.store.get, thread_id) is not None:
            return True
        saver = self.graph.checkpointer
        return await saver.aget_tuple({"configurable": {"thread_id": thread_id}}) is not None

    async def resolve(self, ref: str) -> str:
        """A full thread id from an id or a unique prefix (404 unknown, 400 ambiguous)."""
        if ref in self._sessions or await self._stored(ref):
            return ref
        try:
            return await asyncio.to_thread(self.store.resolve, ref)
        except ThreadError as exc:
            status = 400 if "ambiguous" in exc.message else 404
            raise ApiError(status, exc.message if status == 400 else f"Unknown thread {ref!r}.") from None

    async def create(
        self, thread_id: str | None = None, *, model: str | None = None, mode: str | None = None
    ) -> Session:
        thread_id = thread_id or uuid.uuid4().hex
        if thread_id in self._sessions or await self._stored(thread_id):
            raise ApiError(409, f"Thread {thread_id!r} already exists.")
        session = self._session_for(thread_id)
        configure(session, model=model, mode=mode)
        await self._register(session)
        return self._remember(session)

    async def _register(self, session: Session) -> None:
        """Record a new thread in the database at once, so every replica knows it (its title is
        the first prompt, as for any thread)."""
        from auger.core.threads import git_branch

        root = self.settings.project_root
        await asyncio.to_thread(
            self.store.begin_turn,
            session.thread_id,
            prompt="",
            cwd=str(self.settings.cwd),
            root=str(root),
            model=session.model_spec,
            git_branch=git_branch(root),
        )

    async def get(self, ref: str) -> Session:
        """The session on an existing thread (loaded from the checkpointer if needed); 404 if none."""
        thread_id = await self.resolve(ref)
        session = self._sessions.get(thread_id)
        if session is not None:
            self._sessions.move_to_end(thread_id)
            return session
        session = self._session_for(thread_id)
        await session.open_thread(thread_id)
        session.mode = self.mode
        return self._remember(session)

    async def get_or_create(self, thread_id: str) -> Session:
        if thread_id in self._sessions or await self._stored(thread_id):
            return await self.get(thread_id)
        return await self.create(thread_id)

    def ephemeral(self) -> Session:
        """A throwaway session (stateless chat): not recorded, its checkpoints deleted after the run."""
        session = self._session_for(f"{EPHEMERAL_PREFIX}{uuid.uuid4().hex}")
        session.on_turn_start = session.on_turn_end = None
        return session

    async def seed(self, session: Session, messages: list[Any]) -> None:
        """Give a fresh thread the conversation so far (stateless chat sends it every time)."""
        await self.graph.aupdate_state(session.config, {"messages": messages}, as_node="__start__")

    async def discard(self, session: Session) -> None:
        if session._task is not None and not session._task.done():
            await asyncio.wait([session._task], timeout=30)
        await self.graph.checkpointer.adelete_thread(session.thread_id)

    async def purge_ephemeral(self) -> None:
        """Delete what stateless chats left behind (a crash, a run cut short). On a shared
        PostgreSQL database other replicas' chats may be running: nothing is purged there (each
        replica deletes its own chats' checkpoints when their run ends)."""
        if self.store.database.postgres:
            return
        for thread_id in await asyncio.to_thread(self.store.with_prefix, EPHEMERAL_PREFIX):
            await self.graph.checkpointer.adelete_thread(thread_id)

    # -- runs -----------------------------------------------------------------------------
    async def lease(self, session: Session, on_release: Callable[[], Any] | None = None) -> Lease:
        """Reserve the thread for one run; 409 if a run here holds it, or a turn in another auger
        process (another replica, a headless run). The writer lease in the thread database
        (`auger.core.thread_lease`) is taken here, in one statement, so of two replicas asked at
        once one runs and the other answers 409 before its stream starts."""
        thread_id = session.thread_id
        self._check_free(thread_id)
        lease = self._running[thread_id] = Lease(self, session, on_release)  # reserved while we ask
        try:
            other = await session.writer.claim_now(thread_id) if session.writer is not None else None
        except BaseException:
            lease.release()
            raise
        lease.claimed = other is None and session.writer is not None
        if other is not None:
            lease.release()
            raise ApiError(409, f"Thread {thread_id!r} is busy in another auger ({other.describe()}).")
        return lease

    async def running_elsewhere(self, thread_id: str) -> Holder | None:
        """The other auger process (another replica, a headless run) whose turn holds the thread."""
        if self.busy(thread_id):
            return None
        other = await asyncio.to_thread(self.store.lease_holder, thread_id)
        return other if other is not None and not other.mine() else None

    def _check_free(self, thread_id: str) -> None:
        if self.busy(thread_id):
            raise ApiError(409, f"Thread {thread_id!r} is busy with another run; cancel it or wait.")

    def cancel(self, session: Session) -> bool:
        """Stop the thread's running turn (or the run about to start); False if nothing ran."""
        if session.busy:
            session.cancel()
            return True
        lease = self._running.get(session.thread_id)
        if lease is not None:
            lease.cancelled = True
            return True
        return False

    def busy(self, thread_id: str) -> bool:
        session = self._sessions.get(thread_id)
        return thread_id in self._running or (session is not None and session.busy)

    # -- thread metadata ---------------------------------------------------------------------
    async def describe(self, thread_id: str) -> dict[str, Any]:
        """The thread as `auger threads list --json` shows it, plus this server's live state."""
        info = await asyncio.to_thread(self.store.get, thread_id)
        row = info.to_dict() if info is not None else self._blank(thread_id)
        return self._live(row)

    def _blank(self, thread_id: str) -> dict[str, Any]:
        return {
            "id": thread_id,
            "title": "",
            "cwd": str(self.settings.cwd),
            "project": str(self.settings.project_root),
            "git_branch": None,
            "model": None,
            "created_at": None,
            "updated_at": None,
            "message_count": 0,
            "parent_id": None,
            "fork_turn": None,
        }

    def _live(self, row: dict[str, Any]) -> dict[str, Any]:
        session = self._sessions.get(row["id"])
        row["busy"] = self.busy(row["id"])
        row["mode"] = session.mode if session is not None else self.mode
        row["context_tokens"] = session.context_tokens if session is not None else None
        if session is not None:
            row["model"] = session.model_spec
        return row

    async def list_threads(
        self, *, limit: int = 100, all_projects: bool = False, search: str | None = None
    ) -> list[dict[str, Any]]:
        """Threads newest first: this project's (or all), optionally full-text searched."""
        root = None if all_projects else str(self.settings.project_root)
        infos = await asyncio.to_thread(self.store.list, root=root, search=search, limit=limit)
        return [self._live(info.to_dict()) for info in infos]

    async def rename(self, ref: str, title: str) -> str:
        thread_id = await self.resolve(ref)
        try:
            await asyncio.to_thread(self.store.rename, thread_id, title)
        except AugerError as exc:
            raise ApiError(400, str(exc)) from None
        return thread_id

    async def fork(self, ref: str, at_turn: int | None) -> str:
        from auger.core.thread_ops import fork_thread

        thread_id = await self.resolve(ref)
        try:
            return await fork_thread(self.store, thread_id, at_turn)
        except AugerError as exc:
            raise ApiError(400, str(exc)) from None

    async def delete(self, ref: str) -> None:
        thread_id = await self.resolve(ref)
        if self.busy(thread_id):
            raise ApiError(409, f"Thread {thread_id!r} is running; cancel it before deleting.")
        other = await asyncio.to_thread(self.store.lease_holder, thread_id)
        if other is not None:
            raise ApiError(409, f"Thread {thread_id!r} is busy in another auger ({other.describe()}).")
        self._sessions.pop(thread_id, None)
        await asyncio.to_thread(self.store.delete, thread_id)


def configure(session: Session, *, model: str | None = None, mode: str | None = None) -> None:
    """Apply a request's model/mode to a session; 400 with the core's message when invalid."""
    if mode is not None and mode not in MODES:
        raise ApiError(400, f"Unknown mode {mode!r}; use one of: {', '.join(MODES)}.")
    try:
        if model is not None:
            session.set_model(model)
        if mode is not None:
            session.set_mode(mode)
    except AugerError as exc:
        raise ApiError(400, str(exc)) from None
