"""LangGraph's SQLite checkpointer with short channel versions.

Every checkpoint stores the version of each channel twice over (`channel_versions`, and the
`versions_seen` of every node): with `AsyncSqliteSaver`'s versions — 32 digits, a dot and a random
float, ~50 bytes each — that was 3.2 KB of every checkpoint of a one-line turn. The random part
keys blobs in savers that store channel values apart (PostgreSQL's `checkpoint_blobs`); the SQLite
saver stores them inside the checkpoint, so a plain counter is enough.

`next_version` is a length-prefixed decimal: "a1" … "a9", "b10" … "b99", "c100" …, so string
order is numeric order, and every such version sorts after the saver's own zero-padded ones
("00000000000000000000000000000012.0.39…"): a thread saved before continues with versions that
are all newer than the ones it has, as LangGraph requires (it compares versions of one channel,
and takes the next version from the greatest of all).
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from auger.core.threads.checkpoints.message_serde import MessageMemoSerializer


def version_number(version: str | int | float | None) -> int:
    """The counter of a version in either format (None: 0)."""
    if version is None:
        return 0
    if isinstance(version, int | float):
        return int(version)
    if version[:1].isalpha():
        return int(version[1:])
    return int(version.split(".")[0])


def next_version(current: str | int | float | None) -> str:
    digits = str(version_number(current) + 1)
    return chr(ord("a") + len(digits) - 1) + digits


class CompactSqliteSaver(AsyncSqliteSaver):
    """Also: messages decoded once per process (`auger.core.threads.checkpoints.message_serde`)."""

    def __init__(self, conn: Any, *, serde: Any = None) -> None:
        super().__init__(conn, serde=serde if serde is not None else MessageMemoSerializer())

    def get_next_version(self, current: Any, channel: None) -> str:  # type: ignore[override]
        return next_version(current)
