"""The line under the todo list naming the agent's background commands that still run
(`execute(background=true)`); hidden when none do. `/ps` lists them all and stops one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Static

if TYPE_CHECKING:
    from auger.core.port import JobInfo


class JobsLine(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, classes="-empty", **kwargs)

    def set_jobs(self, jobs: list[JobInfo]) -> None:
        running = [j for j in jobs if j.running]
        self.set_class(not running, "-empty")
        names = ", ".join(f"{j.id} {' '.join(j.command.split())[:40]}" for j in running)
        count = f"{len(running)} background command{'s' if len(running) != 1 else ''}"
        self.update(f"⏵ {count}: {names}  (/ps to list or stop)" if running else "")
