"""WriterLease: a Session's hold on the thread it writes, for the length of one turn.

`acquire` takes the thread's lease row (`auger.core.threads.lease`), waiting — bounded, with one
notice — while another auger's turn holds it; a heartbeat task pushes the expiry forward while
the turn runs; `detach` deletes the row as the turn ends. One owner id per WriterLease (per
Session), so two sessions in one process (`auger serve`) exclude each other too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from auger.core.threads.lease import Holder, ThreadBusyError, hostname

if TYPE_CHECKING:
    from auger.core.threads.store import ThreadStore

log = logging.getLogger("auger.threads")


def _owner() -> str:
    return f"{hostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


HEARTBEAT = 10.0  # seconds between heartbeats of a running turn (the lease lives LEASE_TTL = 30 s)
POLL = 0.25  # seconds between attempts while waiting for a busy thread


class WriterLease:
    """`acquire` before a turn, `detach` after it; `claim_now` takes the lease without waiting."""

    def __init__(self, store: ThreadStore) -> None:
        self.store = store
        self.owner = _owner()
        self.thread_id: str | None = None  # the thread held now
        self._beat: asyncio.Task[None] | None = None
        self._deleting: asyncio.Future[None] | None = None  # the last hold's row, on its way out

    async def claim_now(self, thread_id: str) -> Holder | None:
        """Take the lease if it is free (None), else return its holder. Starts the heartbeat."""
        if self._deleting is not None:  # else this session's own last hold would read as busy
            await self._deleting
        busy = await asyncio.to_thread(self.store.claim_lease, thread_id, self.owner)
        if busy is None:
            self.thread_id = thread_id
            if self._beat is None or self._beat.done():
                self._beat = asyncio.create_task(self._heartbeat(thread_id), name=f"lease:{thread_id}")
        return busy

    async def acquire(self, thread_id: str, wait: float, notify: Callable[[str], None]) -> None:
        """Take the lease, waiting up to `wait` seconds for another auger's turn to end (one
        notice when it starts waiting); ThreadBusyError when it is still busy."""
        deadline = time.monotonic() + max(0.0, wait)
        busy = await self.claim_now(thread_id)
        if busy is not None and wait > 0:
            notify(
                f"Thread {thread_id[:12]} is busy in another auger ({busy.describe()}); "
                f"waiting up to {wait:g} s for its turn to end (thread_wait)."
            )
        while busy is not None and time.monotonic() < deadline:
            await asyncio.sleep(POLL)  # another process: there is no event to wait on
            busy = await self.claim_now(thread_id)
        if busy is not None:
            raise ThreadBusyError(
                f"Thread {thread_id} is busy in another auger ({busy.describe()}).",
                hint="Try again when its turn is over, or start a new thread.",
            )

    def detach(self) -> Awaitable[None]:
        """Let go of the thread now; the returned awaitable (already scheduled) deletes the lease
        row of this hold, and this lease's next `claim_now` waits for it. The next hold has an
        owner id of its own, so a delete still on its way never removes it."""
        thread_id, owner, self.thread_id = self.thread_id, self.owner, None
        if thread_id is not None:
            self.owner = _owner()
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        self._deleting = asyncio.ensure_future(self._delete(thread_id, owner))
        return self._deleting

    async def _delete(self, thread_id: str | None, owner: str) -> None:
        if thread_id is not None:
            try:
                await asyncio.shield(asyncio.to_thread(self.store.release_lease, thread_id, owner))
            except Exception:  # it expires on its own
                log.exception("could not release the lease of thread %s", thread_id)

    async def _heartbeat(self, thread_id: str) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            with contextlib.suppress(Exception):
                busy = await asyncio.to_thread(self.store.claim_lease, thread_id, self.owner)
                if busy is not None:
                    log.warning("thread %s: lease lost to %s", thread_id, busy.describe())
