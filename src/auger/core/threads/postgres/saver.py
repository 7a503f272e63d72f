"""LangGraph's checkpointer on PostgreSQL (`database_url`): `AsyncPostgresSaver` over a pool.

The pool (psycopg_pool) lets one `auger serve` run turns of many threads at once; its
connections are set up as the saver needs them (autocommit, no prepared statements, dict rows).
LangGraph's `setup()` (creating `checkpoints`, `checkpoint_blobs`, `checkpoint_writes` and its
migrations) runs under a session-level advisory lock, so replicas starting together do not race
it. The lock is polled (`pg_try_advisory_lock`), never waited for inside a statement: a waiting
statement holds a snapshot, and setup's `CREATE INDEX CONCURRENTLY` waits for every older
snapshot, so two auger starting at once on a new database waited for each other forever. An
unreachable server or a missing psycopg is one clear ConfigError
(`auger.core.threads.postgres.db`). Its serializer decodes each stored message once per process,
as the SQLite saver's does (`auger.core.threads.checkpoints.message_serde`): the channel values and writes
it reads back at every turn's start are the thread's whole message list.
"""

from __future__ import annotations

import asyncio
from typing import Any

from auger.core.threads.checkpoints.message_serde import MessageMemoSerializer
from auger.core.threads.postgres.db import CONNECT_TIMEOUT, connect_error, psycopg_module

SETUP_KEY = 0x61756766  # the advisory lock around LangGraph's setup ("augf")
POOL_SIZE = 10
SETUP_POLL = 0.05  # seconds between tries of the setup lock


async def open_postgres_saver(url: str) -> tuple[Any, Any]:
    """(saver, pool) on `url`; the caller closes the pool (`await pool.close()`)."""
    psycopg = psycopg_module()
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    try:
        lock = await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        raise connect_error(url, exc) from exc
    pool = AsyncConnectionPool(
        url,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        min_size=1,
        max_size=POOL_SIZE,
        open=False,
        name="auger-checkpoints",
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        saver = AsyncPostgresSaver(pool, serde=MessageMemoSerializer())  # type: ignore[arg-type]
        while True:  # the setup lock on `lock`'s session, polled (the module docstring says why)
            row = await (await lock.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_KEY,))).fetchone()
            if row and row[0]:
                break
            await asyncio.sleep(SETUP_POLL)
        await saver.setup()
    except BaseException:
        await pool.close()
        raise
    finally:
        await lock.close()  # the lock goes with its session
    return saver, pool
