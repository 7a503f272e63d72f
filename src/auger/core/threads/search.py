"""Full-text search over threads: what goes into `auger_messages`/`auger_fts` and how it is queried.

Each message's text is stored once (cut at INDEX_CHARS); the FTS5 index over it is kept by the
triggers of migration `0002_search` (`auger.core.threads.schema`). A search finds the threads
whose messages contain every word, each with a snippet of its newest matching message.
Standard library only.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from auger.core.threads.backend import SearchRow
from auger.core.threads.schema import T_COLUMNS
from auger.errors import UsageError

INDEX_CHARS = 32_000  # text indexed per message (a huge tool result is indexed by its start)
SNIPPET_TOKENS = 12


@dataclass(frozen=True)
class IndexedMessage:
    role: str  # "user" | "assistant" | "tool"
    text: str


def fts_query(text: str) -> str | None:
    """User words -> an FTS5 query: every word must appear (each quoted, so no syntax errors)."""
    words = re.findall(r"\w+", text)
    return " ".join(f'"{w}"' for w in words) if words else None


HIT_START, HIT_END = "\x02", "\x03"  # around each hit in a search snippet
# left out of the indexed text: a NUL ends SQLite's snippet (the words after it were lost) and
# PostgreSQL refuses it; the hit markers in a message would be read as hits
_UNINDEXED = dict.fromkeys(map(ord, "\x00" + HIT_START + HIT_END))


def index_messages(cur: Any, thread_key: int, messages: Sequence[IndexedMessage], at: float) -> None:
    """Store the messages' text for the index, inside the caller's transaction (`?` placeholders:
    SQLite's cursor, or PostgreSQL's `QmarkCursor`, whose generated `tsvector` indexes the rows)."""
    cur.executemany(
        "INSERT INTO auger_messages (thread_key, role, at, text) VALUES (?, ?, ?, ?)",
        [
            (thread_key, m.role, at, m.text[:INDEX_CHARS].translate(_UNINDEXED))
            for m in messages
            if m.text.strip()  # blank ones skipped
        ],
    )


def snippet_parts(snippet: str) -> list[tuple[str, bool]]:
    """A search snippet as (text, is_hit) runs, for a front end to highlight its own way."""
    out: list[tuple[str, bool]] = []
    for index, chunk in enumerate(snippet.split(HIT_START)):
        hit, sep, rest = chunk.partition(HIT_END) if index else ("", "", chunk)
        if hit and sep:
            out.append((hit, True))
        elif hit:
            rest = hit + rest
        if rest:
            out.append((rest, False))
    return out


def unmarked(marked: str) -> str:
    """A snippet in the JSON form (hits as **word**) back in the stored form."""
    return re.sub(r"\*\*(.+?)\*\*", lambda m: HIT_START + m.group(1) + HIT_END, marked)


def marked_snippet(snippet: str, start: str = "**", end: str = "**") -> str:
    """The snippet with each hit between `start` and `end` ("" and "" for plain text)."""
    return "".join(f"{start}{text}{end}" if hit else text for text, hit in snippet_parts(snippet))


def search_rows(
    conn: sqlite3.Connection, text: str, *, root: str | None, limit: int | None
) -> list[SearchRow]:
    """(thread row in THREAD_COLUMNS order, snippet, its message's time) for the threads whose
    messages contain every word of `text`, newest first; hits in the snippet are between HIT_START
    and HIT_END (control characters, so a `**` the message itself holds is not taken for a hit).
    The caller holds the connection's lock."""
    query = fts_query(text)
    if query is None:
        return []
    where = "WHERE t.root = ?" if root is not None else ""
    params: list[Any] = [query, *([root] if root is not None else []), -1 if limit is None else limit]
    sql = f"""
        WITH hits AS (
            SELECT m.thread_key AS k, max(m.id) AS mid FROM auger_fts
            JOIN auger_messages m ON m.id = auger_fts.rowid
            WHERE auger_fts MATCH ? GROUP BY m.thread_key)
        SELECT {T_COLUMNS}, hits.mid
        FROM hits JOIN auger_threads t ON t.key = hits.k {where}
        ORDER BY t.updated_at DESC, t.key DESC LIMIT ?"""
    try:
        rows = conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:  # e.g. an FTS5 query it cannot parse
        raise UsageError(f"Cannot search for {text!r}: {exc}.") from exc
    out = []
    for *info, mid in rows:
        snip = conn.execute(
            "SELECT snippet(auger_fts, 0, ?, ?, '…', ?), m.at FROM auger_fts"
            " JOIN auger_messages m ON m.id = auger_fts.rowid"
            " WHERE auger_fts MATCH ? AND auger_fts.rowid = ?",
            (HIT_START, HIT_END, SNIPPET_TOKENS, query, mid),
        ).fetchone()
        snippet, at = (" ".join(snip[0].split()), snip[1]) if snip else ("", None)
        out.append((tuple(info), snippet, at))
    return out


def reset_index(cur: Any, thread_id: str) -> None:
    """Forget a thread's indexed messages (its conversation was cut: index it again from scratch).
    Portable SQL (`?` placeholders): the store runs it on PostgreSQL too, whose generated `tsvector`
    goes with the row, as FTS5's entries go through the delete trigger here."""
    cur.execute(
        "DELETE FROM auger_messages WHERE thread_key = (SELECT key FROM auger_threads WHERE id = ?)",
        (thread_id,),
    )
    cur.execute(
        "UPDATE auger_threads SET last_message_id = NULL, message_count = 0 WHERE id = ?", (thread_id,)
    )
