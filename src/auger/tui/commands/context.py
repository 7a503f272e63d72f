"""CommandContext: all a slash command may use — the port, the settings, the app's state and
facts, and a few actions on the screen (write, notify, show or ask a screen, redraw the thread,
set the prompt's text, copy, edit, exit). The app builds one per command (`AppBase.commands`);
a test builds one on a real Session with plain functions for the screen, so commands run
without Textual."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from auger.errors import AugerError

if TYPE_CHECKING:
    from textual.screen import Screen

    from auger.core.port import AgentPort
    from auger.settings import Settings
    from auger.tui.facts import Facts
    from auger.tui.state import TuiState

log = logging.getLogger("auger.tui")


class Notify(Protocol):
    def __call__(self, text: str, level: str = "info") -> None: ...


class Show(Protocol):
    """Push `screen`; `then(answer)` runs when it is dismissed (the prompt has the focus again)."""

    def __call__(
        self, screen: Screen[Any], then: Callable[[Any], Awaitable[None]] | None = None
    ) -> Awaitable[None]: ...


@dataclass(frozen=True)
class CommandContext:
    port: AgentPort | None  # None until the agent is up (only commands without needs_session)
    settings: Settings
    state: TuiState[Any]
    facts: Facts
    notify: Notify  # one line in the transcript; level: info | warning | error
    write: Callable[[str], Awaitable[None]]  # a Markdown block in the transcript
    show: Show
    ask: Callable[[Screen[Any]], Awaitable[Any]]  # push a screen, await its answer (in `background`)
    background: Callable[[Coroutine[Any, Any, None]], None]  # run steps that `ask`, then focus the prompt
    redraw: Callable[[str | None], Awaitable[None]]  # the thread from an empty transcript (App.redraw_thread)
    refresh: Callable[[], Awaitable[None]]  # read the thread and catalogue again, redraw the status line
    status: Callable[[], None]  # redraw the status line from what the app knows (no port call)
    set_prompt: Callable[[str], None]
    copy: Callable[[str], None]  # to the clipboard
    edit: Callable[[], Awaitable[None]]  # the prompt in $EDITOR
    exit: Callable[[], Awaitable[None]]

    @property
    def agent(self) -> AgentPort:
        """The port, for commands that run only once it exists (`needs_session`)."""
        assert self.port is not None, "a command that needs the agent ran before it was up"
        return self.port

    async def switch_thread(self, thread_id: str | None, lead: str = "Resumed thread {id}") -> None:
        """Open another thread (None: a new one) and show it (`lead`: see AugerApp.show_history)."""
        await self.agent.open_thread(thread_id)
        await self.redraw(lead if thread_id is not None else None)


async def reported(steps: Awaitable[None], name: str, notify: Notify) -> None:
    """Run /`name`'s `steps`; what goes wrong is one line (a bug's traceback goes to the log)."""
    try:
        await steps
    except AugerError as exc:
        notify(str(exc), "error")
    except Exception as exc:
        log.exception("/%s failed", name)
        notify(f"/{name} failed: {type(exc).__name__}: {exc} (details in the log).", "error")
