"""The line under the todo list naming the agent's background commands that still run
(`execute(background=true)`); hidden when none do. `/ps` lists them all and stops one."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from auger.errors import AugerError

if TYPE_CHECKING:
    from textual.timer import Timer

    from auger.core.port import AgentPort, JobInfo

log = logging.getLogger("auger.tui")


class JobsLine(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, classes="-empty", **kwargs)
        self._timer: Timer | None = None
        self._port: AgentPort | None = None

    async def read(self, port: AgentPort | None) -> None:
        """Read `port`'s background commands; while one runs, again every few seconds."""
        self._port = port
        if port is None:
            return
        try:
            jobs = await port.jobs()
        except AugerError as exc:
            log.warning("reading the background commands failed: %s", exc)
            return
        self.set_jobs(jobs)
        running = any(j.running for j in jobs)
        if running and self._timer is None:
            self._timer = self.set_interval(3, lambda: self.read(self._port))
        elif not running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def set_jobs(self, jobs: list[JobInfo]) -> None:
        running = [j for j in jobs if j.running]
        self.set_class(not running, "-empty")
        names = ", ".join(f"{j.id} {' '.join(j.command.split())[:40]}" for j in running)
        count = f"{len(running)} background command{'s' if len(running) != 1 else ''}"
        self.update(f"⏵ {count}: {names}  (/ps to list or stop)" if running else "")
