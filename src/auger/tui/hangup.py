"""Writes to a terminal that is gone (a closed window, `tmux kill-session`) are dropped.

Textual's driver writes the screen through a writer thread over `sys.__stderr__` with a bounded
queue. Once the terminal hangs up, a write fails with EIO and kills that thread; the app's next
writes fill the queue and its exit (`WriterThread.stop`) then waits forever: auger outlives its
terminal, and so does the command its turn was running. `writes_survive_hangup()` hands the
driver a stream that stops writing at the first error instead (Textual 8.2;
a Textual that stops reading `sys.__stderr__` just does without it).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO


class HangupSafe:
    """`stream`, but once a write or flush fails (the terminal is gone) the rest are dropped."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except OSError:
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError:
                self.gone = True

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding: the terminal's own
        return getattr(self._stream, name)


@contextlib.contextmanager
def writes_survive_hangup() -> Iterator[None]:
    """While the app runs, its driver's stream (`sys.__stderr__`) drops writes once the terminal is gone."""
    original = sys.__stderr__
    if original is None:
        yield
        return
    sys.__stderr__ = HangupSafe(original)  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        sys.__stderr__ = original  # type: ignore[misc]
