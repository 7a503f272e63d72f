"""`@path` completion: the agent's project files (read through the port, so over `--connect`
the server's), matched fuzzily as the user types. The agent inlines the files a prompt names
(`auger.core.catalog.project_files`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

TTL = 10.0  # s: how long a list of the files is used before it is read again


class FileIndex:
    """The last list of the project's files `read` gave; `files()` has `later` read a new one in
    the background once it is older than `TTL` (matching goes on over the old list meanwhile)."""

    def __init__(
        self, read: Callable[[], Awaitable[list[str]]], later: Callable[[Awaitable[None]], object]
    ) -> None:
        self.read, self.later = read, later
        self._files: list[str] = []
        self._at: float | None = None  # when the last read started (None: never)

    def refresh(self) -> None:
        self._at = time.monotonic()
        self.later(self._load())

    async def _load(self) -> None:
        self._files = await self.read()

    def files(self) -> list[str]:
        if self._at is None or time.monotonic() - self._at > TTL:
            self.refresh()
        return self._files

    def match(self, query: str, limit: int) -> list[str]:
        """The `limit` files that match `query` best (fuzzy: its letters in order)."""
        if not query:
            return self.files()[:limit]
        scored = [(s, p) for p in self.files() if (s := _score(query, p)) is not None]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [p for _, p in scored[:limit]]


def _score(query: str, path: str) -> float | None:
    """Higher is better; None when `query` is not a subsequence of `path`."""
    low = path.lower()
    base_start = low.rfind("/") + 1
    pos, score, last = 0, 0.0, -2
    for ch in query.lower():
        found = low.find(ch, pos)
        if found < 0:
            return None
        score += 3.0 if found == last + 1 else 1.0
        if found >= base_start:
            score += 1.0
        if found == 0 or low[found - 1] in "/_-.":
            score += 1.5
        last, pos = found, found + 1
    if query.lower() in low[base_start:]:
        score += 5.0
    return score - len(path) * 0.01


def mention_at(text: str, cursor: int) -> tuple[int, str] | None:
    """The `@partial` being typed at `cursor` (offset into `text`): (start of the @, partial)."""
    start = text.rfind("@", 0, cursor)
    if start < 0 or (start > 0 and not text[start - 1].isspace()):
        return None
    partial = text[start + 1 : cursor]
    if any(ch.isspace() for ch in partial):
        return None
    return start, partial
