"""Full-text search over threads on PostgreSQL: the same answers as `auger.core.threads.search`.

A search finds the threads one of whose messages holds every word (`websearch_to_tsquery` in
the `simple` configuration: quotes and `-word` work, nothing the user types is a syntax error;
other punctuation splits words as it does in the index), newest first, each with a snippet of
its newest matching message (`snippet`: SNIPPET_TOKENS words around the first hit, hits between
HIT_START and HIT_END, like SQLite's). Written as "the newest threads that have a matching
message" so the planner picks by the word's frequency (ANALYZE keeps tsvector statistics): a
rare word goes through the GIN index on `auger_messages.tsv` (`auger.core.threads.postgres.db`),
a common one walks the threads newest first and stops at the page's end.
"""

from __future__ import annotations

import re
from typing import Any

from auger.core.threads.backend import SearchRow
from auger.core.threads.schema import T_COLUMNS
from auger.core.threads.search import HIT_END, HIT_START, SNIPPET_TOKENS


def query_text(text: str) -> str:
    """The user's words for `websearch_to_tsquery`: quotes and a leading `-` kept, every other
    punctuation mark a space (as in the index)."""
    return re.sub(r'(?<=\w)-|-(?!\w)|[^\w\s"-]', " ", text)


def search_rows(conn: Any, text: str, *, root: str | None, limit: int | None) -> list[SearchRow]:
    """(thread row in THREAD_COLUMNS order, snippet, its message's time), newest thread first."""
    if not re.search(r"\w", text):
        return []
    where = "AND t.root = %(root)s" if root is not None else ""
    query = "websearch_to_tsquery('simple', %(text)s)"  # inline: the planner folds it and sees its words
    sql = f"""
        WITH page AS (
            SELECT {T_COLUMNS}, t.key AS tkey FROM auger_threads t
            WHERE EXISTS (SELECT 1 FROM auger_messages m WHERE m.thread_key = t.key AND m.tsv @@ {query})
            {where}
            ORDER BY t.updated_at DESC, t.key DESC LIMIT %(limit)s)
        SELECT page.*, hit.text, hit.at FROM page,
        LATERAL (SELECT m.text, m.at FROM auger_messages m WHERE m.thread_key = page.tkey AND m.tsv @@ {query}
                 ORDER BY m.id DESC LIMIT 1) hit
        ORDER BY page.updated_at DESC, page.tkey DESC"""
    params = {"text": query_text(text), "root": root, "limit": limit}
    rows = conn.execute(sql, params).fetchall()
    words = {w.lower() for w in re.findall(r"(?<![-\w])\w+", query_text(text))}
    return [(tuple(r[:-3]), snippet(str(r[-2]), words), r[-1]) for r in rows]


def snippet(text: str, words: set[str]) -> str:
    """SNIPPET_TOKENS words of `text` from just before the first of `words`, hits between
    HIT_START and HIT_END, cuts …."""
    tokens = list(re.finditer(r"\w+", text))
    first = next((i for i, t in enumerate(tokens) if t[0].lower() in words), 0)
    start = max(0, min(first - 2, len(tokens) - SNIPPET_TOKENS))
    shown = tokens[start : start + SNIPPET_TOKENS]
    if not shown:
        return ""
    out, at = [], shown[0].start()
    for token in shown:
        out.append(text[at : token.start()])
        out.append(f"{HIT_START}{token[0]}{HIT_END}" if token[0].lower() in words else token[0])
        at = token.end()
    if start + SNIPPET_TOKENS >= len(tokens):
        out.append(text[at:])
    body = " ".join("".join(out).split())
    return ("…" if start > 0 else "") + body + ("…" if start + SNIPPET_TOKENS < len(tokens) else "")
