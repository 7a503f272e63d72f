"""Starting a shell command's process without blocking the event loop.

`subprocess.Popen` forks, execs and waits on its error pipe: milliseconds the event loop (the
TUI's keys, a server's other requests) should not wait through, and a blocking call that
`langgraph dev` refuses. `started()` runs it in a worker thread; a turn cancelled meanwhile
still gets the process stopped once it exists (`kill_group`: a command runs in a session of its
own, and everything it started goes with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable
from typing import Any, TypeVar

P = TypeVar("P")
# In every command's environment: `git commit` without -m fails at once instead of waiting for
# an editor nobody sees until the timeout, and pagers print instead of waiting for keys.
QUIET_TOOLS = {
    "GIT_EDITOR": "false",
    "EDITOR": "false",
    "VISUAL": "false",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


async def started(start: Callable[[], P], stop: Callable[[P], None]) -> P:
    """`start()` in a thread; if the awaiting task is cancelled first, `stop()` what it started."""
    spawn = asyncio.ensure_future(asyncio.to_thread(start))
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            stop(await spawn)
        raise


def kill_group(proc: subprocess.Popen[Any] | asyncio.subprocess.Process) -> None:
    """SIGKILL the process group `proc` leads (started with `start_new_session=True`)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
