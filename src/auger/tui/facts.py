"""What the TUI knows of its agent between turns: what it last read through the port (the thread,
the catalogue, the models `/model` offers) and what it counted itself (tokens used, turns, the
last reply). The app, the commands and the completion menu share one `Facts`; plain Python."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.core.port import Catalogue, LiveThread


@dataclass
class Facts:
    catalogue: Catalogue | None = None  # what the agent offers: skills, subagents, tools, MCP
    asked: bool = False  # the thread and the catalogue were read (or failed to be) once the agent was up
    thread: LiveThread | None = None  # the current thread as last read (title, window)
    model_choices: list[str] = field(default_factory=list)  # what /model offered last
    input_tokens: int = 0  # this session's usage
    output_tokens: int = 0
    turns: int = 0  # turns run or shown in this thread
    last_reply: str = ""  # for /copy

    @property
    def context_window(self) -> int:
        """The window of the thread's model, as the agent reads it from its config (0: unknown)."""
        return (self.thread.context_window if self.thread else None) or 0

    def invocable(self) -> list[tuple[str, str, str, str]]:
        """The agent's skills and custom commands, which are sent as `/name args`: (kind, name,
        args hint, description) each."""
        catalogue = self.catalogue
        if catalogue is None:
            return []
        found = [("skill", s) for s in catalogue.skills] + [("command", c) for c in catalogue.commands]
        return [(kind, item.name, item.args_hint, item.description) for kind, item in found]

    def new_thread(self) -> None:
        """Another thread is shown: nothing of the last one's is left."""
        self.last_reply = ""
        self.turns = 0
