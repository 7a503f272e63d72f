"""Background commands: `execute(command, background=true)` starts one and returns at once.

A `Jobs` belongs to one Session (one thread): its commands are `bg1`, `bg2`, ... and end with
it (`stop_all`: `Session.aclose`, and at exit for what is left). Each runs in a process group
of its own, started by the backend (`spawn_command`: the host shell, or inside the sandbox), so
stopping one stops everything it started. A reader thread drains its output into a `Window`
(head and tail kept, the rest spilled to a file the agent can read): `read(id)` returns what
arrived since the last read and whether it still runs.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from auger.core.backends.spawn import kill_group
from auger.core.backends.spill import SpillTo, Window

MAX_RUNNING = 8
Spawn = Callable[[str], "subprocess.Popen[bytes]"]
_LIVE: weakref.WeakSet[Job] = weakref.WeakSet()


@dataclass(eq=False)  # hashable: the registry of live ones is a WeakSet
class Job:
    id: str
    command: str
    proc: subprocess.Popen[bytes]
    new_window: Callable[[], Window]
    started: float = field(default_factory=time.monotonic)
    window: Window = field(init=False)
    stopped: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _drained: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.window = self.new_window()
        threading.Thread(target=self._drain, name=f"auger-{self.id}", daemon=True).start()
        _LIVE.add(self)

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        try:
            while chunk := os.read(fd, 65536):
                with self._lock:
                    self.window.add(chunk)
        except (OSError, ValueError):
            pass
        finally:
            self.proc.wait()
            self.proc.stdout.close()
            self._drained.set()

    @property
    def exit_code(self) -> int | None:
        return self.proc.poll() if self._drained.is_set() else None

    def status(self) -> str:
        if self.exit_code is None:
            return f"running for {time.monotonic() - self.started:.0f} s"
        return "stopped" if self.stopped else f"exited with code {self.exit_code}"

    def take(self) -> str:
        """The output since the last `take` (cut to the window, the rest in a spill file)."""
        with self._lock:
            window, self.window = self.window, self.new_window()
        window.close()
        return window.text()

    def stop(self) -> None:
        if self.exit_code is None:
            self.stopped = True
            kill_group(self.proc)
            self._drained.wait(5)


class Jobs:
    """One session's background commands."""

    def __init__(self, spill_to: SpillTo | None = None, cap: int = 30_000) -> None:
        self._jobs: dict[str, Job] = {}
        self._count = 0
        self._spill_to, self._cap = spill_to, cap
        self._lock = threading.Lock()  # parallel tool calls start jobs from two threads at once

    def _window(self) -> Window:
        half = self._cap // 2
        return Window(self._cap - half, half, self._spill_to, 400)

    def start(self, spawn: Spawn, command: str) -> Job:
        with self._lock:
            running = [j for j in self._jobs.values() if j.exit_code is None]
            if len(running) >= MAX_RUNNING:
                names = ", ".join(j.id for j in running)
                raise RuntimeError(f"{MAX_RUNNING} background commands run already ({names}); stop one first")
            proc = spawn(command)
            self._count += 1
            job = Job(f"bg{self._count}", command, proc, self._window)
            self._jobs[job.id] = job
            return job

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id.strip())
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise KeyError(f"no background command {job_id!r} (this thread's: {known})")
        return job

    def read(self, job_id: str) -> str:
        job = self.get(job_id)
        code = job.exit_code  # before the output: what it printed before it ended is all there
        text = job.take() or "(no new output)"
        state = f"{job.id} is still running" if code is None else f"{job.id} {job.status()}"
        return f"{text.rstrip()}\n\n[{state}: {job.command}]"

    def stop(self, job_id: str) -> str:
        job = self.get(job_id)
        if job.exit_code is not None:
            return f"{job.id} had already {job.status()}: {job.command}"
        job.stop()
        return f"Stopped {job.id}: {job.command}"

    def listing(self) -> list[Job]:
        return list(self._jobs.values())

    def stop_all(self) -> None:
        for job in self._jobs.values():
            job.stop()


@atexit.register
def _stop_left() -> None:
    """What a session did not stop (a crash, an exit without `aclose`) still goes with auger."""
    for job in list(_LIVE):
        if job.proc.poll() is None:
            kill_group(job.proc)


def spawner(backend: Any) -> Spawn | None:
    """The backend's way to start a command in a process group of its own (None: it has none)."""
    found = getattr(backend, "spawn_command", None)
    return found if callable(found) else None
