"""The status bar: spinner + elapsed while a turn runs, model, approval mode, context use,
thread title, git branch and cwd."""

from __future__ import annotations

import time
from typing import ClassVar

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
        if self.title:
            parts += [sep, (fmt.one_line(self.title, 40), style("status--title"))]
        if self.branch:
            parts += [sep, (f"⎇ {self.branch}", style("status--dim"))]
        if self.cwd:
            parts += [sep, (self.cwd, style("status--dim"))]
        return Content.assemble(*parts)  # type: ignore[arg-type]
