"""Memory during a long turn: the cyclic garbage a streamed reply makes is not left to pile up
until the turn ends (auger.tui.gcpolicy)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from rich.segment import Segment
from textual.strip import Strip

from auger.tui import gcpolicy


def test_a_strip_divided_at_its_end_is_freed_without_a_collection() -> None:
    """Textual caches `divide([end])` as `[self]` on the strip: a loop. Without it the strip goes
    with its last reference (gc.collect finds nothing)."""
    gcpolicy.strips_without_self_loop()
    gc.disable()  # freed by its reference count alone, or not at all (whatever else is garbage)
    try:
        strip = _WeaklyHeldStrip([Segment("hello "), Segment("world")])
        assert strip.divide([strip.cell_length]) == [strip]
        assert [s.text for s in strip.divide([3, strip.cell_length])] == ["hel", "lo world"]
        held = weakref.ref(strip)
        del strip
        assert held() is None
    finally:
        gc.enable()


class _WeaklyHeldStrip(Strip):
    __slots__ = ("__weakref__",)  # Strip has slots and no weak references


class _Timer:
    def __init__(self, stopped: list[Callable[[], Any]], callback: Callable[[], Any]) -> None:
        self.stopped, self.callback = stopped, callback

    def stop(self) -> None:
        self.stopped.append(self.callback)


class _CountingGc:
    """`gc` as the policy sees it: counts chosen by the test, calls recorded."""

    def __init__(self) -> None:
        self.count = (0, 0, 0)
        self.calls: list[str] = []

    def get_count(self) -> tuple[int, int, int]:
        return self.count

    def get_threshold(self) -> tuple[int, int, int]:
        return (700, 10, 10)

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args: self.calls.append(name)


def test_a_long_turn_collects_what_is_new_between_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _CountingGc()
    monkeypatch.setattr(gcpolicy, "gc", fake)
    monkeypatch.setattr(gcpolicy, "trim_heap", lambda: None)
    timers: list[tuple[float, Callable[[], Any]]] = []
    stopped: list[Callable[[], Any]] = []
    busy = [False]

    def schedule(delay: float, callback: Callable[[], Any]) -> _Timer:
        timers.append((delay, callback))
        return _Timer(stopped, callback)

    policy = gcpolicy.GcPolicy(schedule, busy=lambda: busy[0])
    policy.start()
    fake.calls.clear()
    policy.turn_started()
    assert [delay for delay, _ in timers] == [gcpolicy.TICK]
    timers.pop()[1]()  # little reached generation 2: nothing to do, look again
    assert fake.calls == [] and [delay for delay, _ in timers] == [gcpolicy.TICK]
    fake.count = (0, 0, gcpolicy.PROMOTED)
    busy[0] = True
    timers.pop()[1]()  # a key is on its way: not now
    assert fake.calls == []
    busy[0] = False
    timers.pop()[1]()
    assert fake.calls == ["collect", "freeze"]  # what is new, frozen after: the next one is small
    tick = timers[-1][1]
    fake.calls.clear()
    policy.turn_ended()
    assert tick in stopped and fake.calls[-2:] == ["collect", "freeze"]
