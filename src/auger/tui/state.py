"""The TUI's state machine: what the app is doing (its `Phase`) and the inputs waiting for it.

`TuiState` owns the phase; the app asks it (`busy`, `ready`, `must_wait`) and moves it only with
its methods, each a transition of `ALLOWED`. A move the table does not allow is a bug: it is
logged with the stack and made anyway (the screen follows what really happened). Inputs typed
while not idle wait in its queue, drained in order once idle. Plain Python, no Textual.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

log = logging.getLogger("auger.tui")

T = TypeVar("T")


class Phase(Enum):
    SETUP = "setup"  # the first-run screen asks for a model
    BOOTING = "booting"  # the agent (the Session, or the connection to a server) is being built
    FAILED = "failed"  # it could not be built: nothing can run until auger restarts
    IDLE = "idle"
    TURN = "turn"  # a turn is running
    WAITING = "waiting"  # the turn waits for the user: an approval or a form is open
    CANCELLING = "cancelling"  # the user interrupted the turn; it is winding down
    COMPACTING = "compacting"  # /compact is summarising the conversation


ACTIVITY = {  # what the status line's spinner says
    Phase.SETUP: "",
    Phase.BOOTING: "starting",
    Phase.FAILED: "",
    Phase.IDLE: "",
    Phase.TURN: "working",
    Phase.WAITING: "waiting for you",
    Phase.CANCELLING: "stopping",
    Phase.COMPACTING: "compacting",
}

ALLOWED: dict[Phase, frozenset[Phase]] = {
    Phase.SETUP: frozenset({Phase.BOOTING}),
    Phase.BOOTING: frozenset({Phase.SETUP, Phase.IDLE, Phase.FAILED}),
    Phase.FAILED: frozenset(),
    Phase.IDLE: frozenset({Phase.TURN, Phase.COMPACTING}),
    Phase.TURN: frozenset({Phase.WAITING, Phase.CANCELLING, Phase.IDLE}),
    Phase.WAITING: frozenset({Phase.TURN, Phase.CANCELLING, Phase.IDLE}),
    Phase.CANCELLING: frozenset({Phase.IDLE}),
    Phase.COMPACTING: frozenset({Phase.IDLE}),
}

RUNNING = frozenset({Phase.TURN, Phase.WAITING, Phase.CANCELLING})  # a turn is in flight


@dataclass
class Queued(Generic[T]):
    """An input that waits: `text` as typed, `shown` its prompt's block (None: a command)."""

    text: str
    shown: T | None = None


class TuiState(Generic[T]):
    """The phase, the turn's open questions (approvals, forms) and the queue of inputs;
    `on_change(old, new)` runs after every change of phase."""

    def __init__(self, on_change: Callable[[Phase, Phase], None] | None = None) -> None:
        self.phase = Phase.BOOTING
        self.error: str | None = None  # why the agent did not start (FAILED)
        self.asking = 0  # approvals and forms of the running turn not answered yet
        self.queue: deque[Queued[T]] = deque()
        self._on_change = on_change

    @property
    def busy(self) -> bool:
        """A turn is in flight (Esc cancels it; idle-only commands wait)."""
        return self.phase in RUNNING

    @property
    def ready(self) -> bool:
        """Nothing runs: the next input can go now."""
        return self.phase is Phase.IDLE

    def must_wait(self) -> bool:
        """An input typed now queues: something runs, or earlier inputs wait before it."""
        return not self.ready or bool(self.queue)

    def enqueue(self, text: str, shown: T | None = None) -> None:
        self.queue.append(Queued(text, shown))

    def next_input(self) -> Queued[T] | None:
        """The oldest waiting input, once the app is idle (None otherwise or when none waits)."""
        return self.queue.popleft() if self.ready and self.queue else None

    def configure(self) -> None:  # the first-run screen is up
        self._move(Phase.SETUP)

    def boot(self) -> None:
        self._move(Phase.BOOTING)

    def booted(self) -> None:
        self._move(Phase.IDLE)

    def boot_failed(self, error: str) -> None:
        self.error = error
        self._move(Phase.FAILED)

    def turn_started(self) -> None:
        self.asking = 0
        self._move(Phase.TURN)

    def ask_opened(self) -> None:
        """The turn asks the user (an approval, a form); several can be open at once."""
        self.asking += 1
        if self.phase is not Phase.CANCELLING:
            self._move(Phase.WAITING)

    def ask_closed(self) -> None:
        """One question was answered; the turn works again once none is open."""
        self.asking = max(0, self.asking - 1)
        if self.phase is Phase.WAITING and not self.asking:
            self._move(Phase.TURN)

    def cancel(self) -> None:  # Esc, Ctrl+C
        self._move(Phase.CANCELLING)

    def turn_ended(self) -> None:
        self.asking = 0
        self._move(Phase.IDLE)

    def compacting(self) -> None:
        self._move(Phase.COMPACTING)

    def compacted(self) -> None:
        self._move(Phase.IDLE)

    def _move(self, new: Phase) -> None:
        old = self.phase
        if new is old:
            return
        if new not in ALLOWED[old]:
            log.error(
                "TUI state: %s -> %s is not a transition of the table", old.value, new.value, stack_info=True
            )
        self.phase = new
        if self._on_change is not None:
            self._on_change(old, new)
