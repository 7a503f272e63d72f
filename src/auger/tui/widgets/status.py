"""The status bar: spinner + elapsed while a turn runs, model, approval mode, context use,
thread title, git branch and cwd."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from auger.tui import format as fmt

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class StatusBar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"status--{part}" for part in ("spinner", "model", "mode", "tokens", "title", "dim", "hint")
    }
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("")
    context_tokens: reactive[int] = reactive(0)
    window: reactive[int] = reactive(0)
    title: reactive[str] = reactive("")
    branch: reactive[str] = reactive("")
    cwd: reactive[str] = reactive("")
    activity: reactive[str] = reactive("")  # "" when idle, else what is happening ("working", "starting")
    cost: reactive[str] = reactive("")  # the thread's price so far ("$0.0123"), "" when unknown
    hint: reactive[str] = reactive("")  # a short-lived key hint ("Press Ctrl+C again to quit.")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._since = time.monotonic()
        self._hint_timer: Timer | None = None

    def flash(self, hint: str, seconds: float) -> None:
        """Show `hint` first in the bar for `seconds`: in the bar's own line, so it never covers
        the prompt (a toast would sit on the prompt's border)."""
        if self._hint_timer is not None:
            self._hint_timer.stop()
        self.hint = hint
        self._hint_timer = self.set_timer(seconds, self._clear_hint)

    def _clear_hint(self) -> None:
        self.hint = ""
        self._hint_timer = None

    def watch_activity(self, old: str, new: str) -> None:
        if new and not old:
            self._since = time.monotonic()
        self.auto_refresh = 0.1 if new else None  # the spinner turns, the time counts
        self.set_class(bool(new), "-busy")

    def render(self) -> Content:
        style = self.get_visual_style
        sep = (" · ", style("status--dim"))
        parts: list[tuple[str, object] | str] = []
        if self.hint:
            parts += [(self.hint, style("status--hint")), sep]
        if self.activity:
            took = time.monotonic() - self._since
            spin = SPINNER[int(took * 10) % len(SPINNER)]
            parts += [(f"{spin} {self.activity} {fmt.elapsed(took)}", style("status--spinner")), sep]
        parts.append((self.model or "no model", style("status--model")))
        parts += [sep, (self.mode, style("status--mode"))]
        if self.window:
            parts += [sep, (fmt.context_use(self.context_tokens, self.window), style("status--tokens"))]
        if self.cost:
            parts += [sep, (self.cost, style("status--tokens"))]
        if self.title:
            parts += [sep, (fmt.one_line(self.title, 40), style("status--title"))]
        if self.branch:
            parts += [sep, (f"⎇ {self.branch}", style("status--dim"))]
        if self.cwd:
            parts += [sep, (self.cwd, style("status--dim"))]
        return Content.assemble(*parts)  # type: ignore[arg-type]

    async def read_cost(self, port: Any) -> None:
        """The thread's price so far from `port` (`/cost`'s figures); nothing when none is known."""
        try:
            prices = [c.price for c in await port.cost() if c.scope == "thread" and c.price is not None]
        except Exception:  # the status line never fails a turn
            return
        self.cost = f"${sum(prices):.4f}" if prices else ""
