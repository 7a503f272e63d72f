"""Full-text search over threads on PostgreSQL: the same answers as `auger.core.thread_search`.

A search finds the threads one of whose messages holds every word (`websearch_to_tsquery` in
the `simple` configuration: quotes and `-word` work, nothing the user types is a syntax error),
newest first, each with a snippet of its newest matching message (`ts_headline`, hits marked
with **). Written as "the newest threads that have a matching message" so the planner picks by
the word's frequency (ANALYZE keeps tsvector statistics): a rare word goes through the GIN index
on `auger_messages.tsv` (`auger.core.postgres_db`), a common one walks the threads newest first
and stops at the page's end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from auger.core.thread_schema import THREAD_COLUMNS
from auger.core.thread_search import INDEX_CHARS, SNIPPET_TOKENS, IndexedMessage

_COLUMNS = ", ".join("t." + c.strip() for c in THREAD_COLUMNS.split(","))  # then the key
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
    query = "websearch_to_tsquery('simple', %(text)s)"  # inline: the planner folds it and sees its words
    sql = f"""
        WITH page AS (
            SELECT {_COLUMNS}, t.key AS tkey FROM auger_threads t
            WHERE EXISTS (SELECT 1 FROM auger_messages m WHERE m.thread_key = t.key AND m.tsv @@ {query})
            {where}
            ORDER BY t.updated_at DESC, t.key DESC LIMIT %(limit)s)
        SELECT page.*, ts_headline('simple', hit.text, {query}, %(opts)s), hit.at FROM page,
        LATERAL (SELECT m.text, m.at FROM auger_messages m WHERE m.thread_key = page.tkey AND m.tsv @@ {query}
                 ORDER BY m.id DESC LIMIT 1) hit
        ORDER BY page.updated_at DESC, page.tkey DESC"""
    params = {"text": text, "root": root, "opts": _HEADLINE, "limit": limit}
    rows = conn.execute(sql, params).fetchall()
    return [(tuple(r[:-3]), " ".join(str(r[-2]).split()), r[-1]) for r in rows]
