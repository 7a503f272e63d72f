"""A thread's recorded turns, numbered as user turns, with what each changed.

Records name turns by input checkpoint; the thread's checkpoint chain gives their numbers (the
same count `threads fork --at N` uses). A record whose turn is no longer in the conversation is
ignored. A turn whose process died before its end snapshot ends where the next recorded turn
began, or, for the last one, at the files as they are now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from auger.core.rewind import records, trees
from auger.core.rewind.records import TurnRecord
from auger.core.rewind.trees import Change, Reader
from auger.core.text import counted
from auger.core.threads.checkpoints import rows as thread_checkpoints
from auger.errors import ThreadError, UsageError


@dataclass(frozen=True)
class RecordedTurn:
    turn: int
    record: TurnRecord


@dataclass(frozen=True)
class Timeline:
    thread_id: str
    turns: int  # user turns in the conversation
    recorded: list[RecordedTurn]  # oldest first

    def check_turn(self, turn: int, flag: str) -> None:
        if self.turns == 0:
            raise UsageError(f"Thread {self.thread_id} has no saved conversation.")
        if not 1 <= turn <= self.turns:
            raise UsageError(
                f"Thread {self.thread_id} has {counted(self.turns, 'user turn')};"
                f" {flag} must be 1..{self.turns} (got {turn}).",
                hint=f"See `auger threads show {self.thread_id[:12]}`.",
            )

    def roots(self) -> list[str]:
        return list(dict.fromkeys(t.record.root for t in self.recorded))

    def changes(
        self, read: Reader, root: str, now: Callable[[], str], since: int = 1
    ) -> Iterator[tuple[int, list[Change]]]:
        """(turn, its changes) for the recorded turns `since`.. of project `root`; `now()`
        snapshots the files as they are (asked only for a last turn that never recorded its end)."""
        mine = [t for t in self.recorded if t.record.root == root]
        for i, item in enumerate(mine):
            if item.turn < since:
                continue
            after = item.record.after_tree
            if after is None:
                after = mine[i + 1].record.before_tree if i + 1 < len(mine) else now()
            yield item.turn, list(trees.diff(read, item.record.before_tree, after))


def load(db: records.Db, thread_id: str) -> Timeline:
    if not db.has_checkpoints:
        raise ThreadError(f"Thread {thread_id} has no saved conversation.")
    inputs = thread_checkpoints.input_checkpoints(db.cur, thread_id)
    number = {cid: i + 1 for i, cid in enumerate(inputs)}
    recorded = [
        RecordedTurn(number[r.checkpoint_id], r)
        for r in records.for_thread(db, thread_id)
        if r.checkpoint_id in number
    ]
    recorded.sort(key=lambda t: t.turn)
    return Timeline(thread_id, len(inputs), recorded)
