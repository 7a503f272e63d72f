"""LangGraph's setup on a new PostgreSQL database while another auger is in the middle of its own:
the second one must not hold a snapshot while it waits for the setup lock, or the first one's
`CREATE INDEX CONCURRENTLY` waits for it forever (two `auger -n` started at once hung so)."""

from __future__ import annotations

import asyncio

import psycopg

from auger.core.threads.postgres.saver import SETUP_KEY, open_postgres_saver


async def _sessions(url: str, but: int) -> int:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid NOT IN (pg_backend_pid(), %s)",
            (but,),
        )
        row = await cur.fetchone()
        return int(row[0]) if row else 0


async def test_a_second_auger_waits_for_the_setup_without_blocking_it(pg_url: str) -> None:
    first = await psycopg.AsyncConnection.connect(pg_url, autocommit=True)
    try:  # the first auger: holds the setup lock, its setup builds an index concurrently
        await first.execute("SELECT pg_advisory_lock(%s)", (SETUP_KEY,))
        await first.execute("CREATE TABLE setup_probe (id int)")
        pid = first.info.backend_pid
        second = asyncio.create_task(open_postgres_saver(pg_url))
        while await _sessions(pg_url, pid) < 2:  # its pool and its lock connection are open
            assert not second.done()
            await asyncio.sleep(0.01)
        await first.execute("SET statement_timeout = '10s'")
        await first.execute("CREATE INDEX CONCURRENTLY setup_probe_idx ON setup_probe (id)")
        await first.execute("SELECT pg_advisory_unlock(%s)", (SETUP_KEY,))
        _saver, pool = await asyncio.wait_for(second, 60)
        await pool.close()
    finally:
        await first.close()
