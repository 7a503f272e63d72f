"""One Session per active thread, all over ONE Runtime (graph, checkpointer connection, thread
store, MCP, hooks): a Session costs microseconds; the Runtime is opened once by `auger serve`.

A thread is busy while a run holds its `Lease`; a second run gets 409. Idle sessions past
`MAX_IDLE` are dropped (least recently used first) — their history stays in the checkpointer.
The pool also keeps what is the server's own state, not the conversation's: each thread's default
approval mode (`POST /threads {"mode"}`, `POST /threads/{id}/mode`; a run may pass its own), and
the busy flag and mode it adds to every thread object it answers with.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections import OrderedDict
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from auger.core.operations import ThreadList
from auger.core.port import MODES
from auger.core.threads.store import LiveThread
from auger.errors import BusyError, ThreadError, UsageError

if TYPE_CHECKING:
    from auger.core.runtime import Runtime
    from auger.core.session.session import Session

MAX_IDLE = 256
EPHEMERAL_PREFIX = "~tmp-"  # "~" is not allowed in client thread ids: no collisions


class Lease:
    """A thread reserved for one run; `release()` is idempotent and synchronous. The run holds
    the thread's writer lease in the database from the start (`ThreadPool.lease`); a turn that
    ran releases it as it ends, and `release()` gives back one no turn took over (a run cut short
    or cancelled before it started). A stateless chat's thread is deleted once released."""

    def __init__(self, pool: ThreadPool, session: Session) -> None:
        self.pool, self.session = pool, session
        self.released = False
        self.cancelled = False  # a cancel that came before the turn started
        self.claimed = False  # the writer lease in the database was taken for this run

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        if self.pool.leases.get(self.session.thread_id) is self:
            del self.pool.leases[self.session.thread_id]
        writer = self.session.writer
        if self.claimed and writer.thread_id is not None and not self.session.busy:
            self.pool.later(writer.detach())
        if self.session.thread_id.startswith(EPHEMERAL_PREFIX):
            self.pool.later(self.pool.discard(self.session))


class ThreadPool:
    def __init__(self, runtime: Runtime, mode: str) -> None:
        self.runtime = runtime
        self.mode = mode  # the default approval mode of runs
        self.base = runtime.session()  # answers the operations that are about no thread in particular
        self.modes: dict[str, str] = {}
        self.leases: dict[str, Lease] = {}
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._background: set[asyncio.Future[None]] = set()

    async def aclose(self) -> None:
        running = [s for s in self._sessions.values() if s.busy]
        for session in running:
            session.cancel()
        for session in running:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(session.aclose(), 5)
        self._sessions.clear()
        with contextlib.suppress(Exception):
            await self.purge_ephemeral()

    def later(self, work: Awaitable[None]) -> None:
        """Run `work` in the background (a task kept until it is done)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- sessions -------------------------------------------------------------------------
    def _remember(self, session: Session) -> Session:
        self._sessions[session.thread_id] = session
        self._sessions.move_to_end(session.thread_id)
        while len(self._sessions) > MAX_IDLE:
            victim = next((k for k in self._sessions if not self.busy(k)), None)
            if victim is None:
                break
            del self._sessions[victim]
        return session

    async def _stored(self, thread_id: str) -> bool:
        if await asyncio.to_thread(self.runtime.threads.get, thread_id) is not None:
            return True
        return (
            await self.runtime.checkpointer.aget_tuple({"configurable": {"thread_id": thread_id}}) is not None
        )

    async def resolve(self, ref: str) -> str:
        """A full thread id from an id or a unique prefix (ThreadError: unknown or ambiguous)."""
        if ref in self._sessions or await self._stored(ref):
            return ref
        try:
            return await asyncio.to_thread(self.runtime.threads.resolve, ref)
        except ThreadError as exc:
            if "ambiguous" in exc.message:
                raise
            raise ThreadError(f"Unknown thread {ref!r}.") from None

    def _session(self, thread_id: str | None = None) -> Session:
        """A Session here never waits for a thread another auger holds: `lease` answers 409."""
        session = self.runtime.session(thread_id)
        session.thread_wait = 0.0
        return session

    async def create(self, thread_id: str | None = None, mode: str | None = None) -> Session:
        thread_id = thread_id or uuid.uuid4().hex
        if thread_id in self._sessions or await self._stored(thread_id):
            raise BusyError(f"Thread {thread_id!r} already exists.")
        self.set_mode(thread_id, mode)
        session = self._session(thread_id)
        await self._register(session)
        return self._remember(session)

    async def _register(self, session: Session) -> None:
        """Record a new thread in the database at once, so every replica knows it (its title is
        the first prompt, as for any thread)."""
        from auger.paths import git_branch

        settings = self.runtime.settings
        root = settings.project_root
        await asyncio.to_thread(
            self.runtime.threads.begin_turn,
            session.thread_id,
            prompt="",
            cwd=str(settings.cwd),
            root=str(root),
            model=session.model_spec,
            git_branch=git_branch(root),
        )

    async def get(self, ref: str) -> Session:
        """The session on an existing thread (loaded from the checkpointer if needed)."""
        thread_id = await self.resolve(ref)
        session = self._sessions.get(thread_id)
        if session is not None:
            self._sessions.move_to_end(thread_id)
            return session
        session = self._session()
        await session.open_thread(thread_id)
        return self._remember(session)

    async def get_or_create(self, thread_id: str) -> Session:
        if thread_id in self._sessions or await self._stored(thread_id):
            return await self.get(thread_id)
        return await self.create(thread_id)

    def forget(self, thread_id: str) -> None:
        self._sessions.pop(thread_id, None)
        self.modes.pop(thread_id, None)

    def set_mode(self, thread_id: str, mode: str | None) -> None:
        if mode is None:
            return
        if mode not in MODES:
            raise UsageError(f"Unknown mode {mode!r}; use one of: {', '.join(MODES)}.")
        self.modes[thread_id] = mode

    def mode_of(self, thread_id: str) -> str:
        return self.modes.get(thread_id, self.mode)

    # -- stateless chats ------------------------------------------------------------------
    def ephemeral(self) -> Session:
        """A throwaway session (stateless chat): not recorded, its checkpoints deleted after the run."""
        return self.runtime.session(f"{EPHEMERAL_PREFIX}{uuid.uuid4().hex}", record=False)

    async def seed(self, session: Session, messages: list[Any]) -> None:
        """Give a fresh thread the conversation so far (stateless chat sends it every time)."""
        await self.runtime.graph.aupdate_state(session.config(), {"messages": messages}, as_node="__start__")

    async def discard(self, session: Session) -> None:
        await session.aclose()  # waits for a turn cut short
        await self.runtime.checkpointer.adelete_thread(session.thread_id)

    async def purge_ephemeral(self) -> None:
        """Delete what stateless chats left behind (a crash, a run cut short). On a shared
        PostgreSQL database other replicas' chats may be running: nothing is purged there (each
        replica deletes its own chats' checkpoints when their run ends)."""
        store = self.runtime.threads
        if store.database.postgres:
            return
        for thread_id in await asyncio.to_thread(store.with_prefix, EPHEMERAL_PREFIX):
            await self.runtime.checkpointer.adelete_thread(thread_id)

    # -- runs -----------------------------------------------------------------------------
    async def lease(self, session: Session, model: str | None = None) -> Lease:
        """Reserve the thread for one run, on `model` when given; BusyError (409) if a run here
        holds it, or a turn in another auger process (another replica, a headless run). The writer
        lease in the thread database (`auger.core.threads.lease`) is taken here, in one statement,
        so of two replicas asked at once one runs and the other answers 409 before its stream
        starts. The model is set once the thread is reserved (a busy thread's run keeps its own)."""
        thread_id = session.thread_id
        if self.busy(thread_id):
            raise BusyError(f"Thread {thread_id!r} is busy with another run; cancel it or wait.")
        lease = self.leases[thread_id] = Lease(self, session)  # reserved while we ask
        try:
            other = await session.writer.claim_now(thread_id)
            lease.claimed = other is None
            if other is not None:
                raise BusyError(f"Thread {thread_id!r} is busy in another auger ({other.describe()}).")
            if model is not None:
                session.select_model(model)  # ModelError (400): nothing runs
        except BaseException:
            lease.release()
            raise
        return lease

    def cancel(self, session: Session) -> bool:
        """Stop the thread's running turn (or the run about to start); False if nothing ran."""
        if session.busy:
            session.cancel()
            return True
        lease = self.leases.get(session.thread_id)
        if lease is not None:
            lease.cancelled = True
            return True
        return False

    def busy(self, thread_id: str) -> bool:
        session = self._sessions.get(thread_id)
        return thread_id in self.leases or (session is not None and session.busy)

    # -- what the server says about threads ---------------------------------------------------
    def live(self, value: Any) -> Any:
        """`value` (an operation's result) with every thread object carrying this server's state."""
        if isinstance(value, LiveThread):
            session = self._sessions.get(value.id)
            live: dict[str, Any] = {"busy": self.busy(value.id), "mode": self.mode_of(value.id)}
            if session is not None:
                live |= {"context_tokens": session.context_tokens, "model": session.model_spec}
            return dataclasses.replace(value, **live)
        if isinstance(value, ThreadList):
            return ThreadList([self.live(t) for t in value.threads])
        return value
