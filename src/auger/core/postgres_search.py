"""Full-text search over threads on PostgreSQL: the same answers as `auger.core.thread_search`.

A search finds the threads one of whose messages holds every word (`websearch_to_tsquery` in
the `simple` configuration: quotes and `-word` work, nothing the user types is a syntax error),
newest first, each with a snippet of its newest matching message (`ts_headline`, hits marked
with **). The GIN index on `auger_messages.tsv` (`auger.core.postgres_db`) finds the messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from auger.core.thread_schema import THREAD_COLUMNS
from auger.core.thread_search import INDEX_CHARS, SNIPPET_TOKENS, IndexedMessage

_COLUMNS = ", ".join("t." + c.strip() for c in THREAD_COLUMNS.split(","))  # then key, mid
_HEADLINE = f"StartSel=**, StopSel=**, MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS // 2}, ShortWord=0"


def index_messages(cur: Any, thread_key: int, messages: Sequence[IndexedMessage], at: float) -> None:
    """Store the messages' text (blank ones skipped) inside the caller's transaction."""
    cur.executemany(
        "INSERT INTO auger_messages (thread_key, role, at, text) VALUES (%s, %s, %s, %s)",
        [
            (thread_key, m.role, at, m.text[:INDEX_CHARS].replace("\x00", ""))
            for m in messages
            if m.text.strip()
        ],
    )


def search_rows(
    conn: Any, text: str, *, root: str | None, limit: int | None
) -> list[tuple[tuple[Any, ...], str, float | None]]:
    """(thread row in THREAD_COLUMNS order, snippet, its message's time), newest thread first."""
    if not re.search(r"\w", text):
        return []
    where = "AND t.root = %(root)s" if root is not None else ""
    sql = f"""
        WITH q AS (SELECT websearch_to_tsquery('simple', %(text)s) AS q),
        hits AS (
            SELECT m.thread_key AS k, max(m.id) AS mid FROM auger_messages m, q
            WHERE m.tsv @@ q.q GROUP BY m.thread_key),
        page AS (
            SELECT {_COLUMNS}, t.key AS tkey, hits.mid FROM hits JOIN auger_threads t ON t.key = hits.k
            WHERE true {where} ORDER BY t.updated_at DESC, t.key DESC LIMIT %(limit)s)
        SELECT page.*, ts_headline('simple', m.text, q.q, %(opts)s), m.at
        FROM page JOIN auger_messages m ON m.id = page.mid, q
        ORDER BY page.updated_at DESC, page.tkey DESC"""
    params = {"text": text, "root": root, "opts": _HEADLINE, "limit": limit}
    rows = conn.execute(sql, params).fetchall()
    return [(tuple(r[:-4]), " ".join(str(r[-2]).split()), r[-1]) for r in rows]
