"""AppBase: the widgets, output, status line and key actions of the app, and the `CommandContext`
it hands to slash commands (AugerApp, in app.py, adds the session's lifecycle, turns and input
handling)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.actions import SkipAction
from textual.app import App
from textual.screen import Screen
from textual.widgets import TextArea

from auger.paths import git_branch
from auger.tui import format as fmt
from auger.tui.state import ACTIVITY, RUNNING, Phase
from auger.tui.widgets.prompt import PromptInput
from auger.tui.widgets.start_header import StartHeader
from auger.tui.widgets.status import StatusBar
from auger.tui.widgets.todos import TodoPanel
from auger.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from auger.core.port import AgentPort
    from auger.settings import Settings
    from auger.tui.commands.context import CommandContext
    from auger.tui.facts import Facts
    from auger.tui.prompt.history import PromptHistory
    from auger.tui.state import TuiState

MODES = ("manual", "auto-edit", "yolo", "plan")  # auger.core.port.MODES (not imported before the first paint)
QUIT_WINDOW = 2.0  # seconds between the two Ctrl+C presses
REWIND_WINDOW = 1.0  # seconds between the two Esc presses that open /rewind


class AppBase(App[int]):
    """What every part of the app may use: its widgets, the status line, the key actions."""

    settings: Settings
    session: AgentPort | None
    state: TuiState[Any]
    facts: Facts
    prompt_history: PromptHistory
    _quit_armed = 0.0
    _rewind_armed = 0.0

    @property
    def busy(self) -> bool:
        """A turn is in flight (the state machine says)."""
        return self.state.busy

    # AugerApp's (the session's lifecycle), which commands get through their context
    redraw_thread: Callable[[str | None], Awaitable[None]]
    refresh_agent: Callable[[], Awaitable[None]]
    action_editor: Callable[[], Awaitable[None]]

    # -- widgets ---------------------------------------------------------------------------
    # They live on the main screen (the bottom of the stack): App.query only sees the active
    # screen, which is a picker while one is open, and a turn may be running under it.
    @property
    def main_screen(self) -> Screen[Any]:
        return self.screen_stack[0]

    @property
    def transcript(self) -> Transcript:
        return self.main_screen.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self.main_screen.query_one(PromptInput)

    @property
    def todos(self) -> TodoPanel:
        return self.main_screen.query_one(TodoPanel)

    @property
    def status(self) -> StatusBar:
        return self.main_screen.query_one(StatusBar)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.busy
        if action == "rewind_key":  # Esc on an idle, empty prompt (Esc during a turn cancels it)
            return self.state.ready and self.focused is self.prompt
        return True

    async def quit_app(self) -> None:
        if self.session is not None and self.busy:
            self.session.cancel()
        self.exit(0)

    def catch_hangup(self) -> None:
        """A closed terminal (SIGHUP) or a SIGTERM ends auger like /quit: the turn is cancelled
        (its command's process group killed), the terminal restored, the thread left whole."""
        import asyncio
        import signal

        def hang_up(sig: int) -> None:
            if self.session is not None and self.busy:
                self.session.cancel()
            self.exit(128 + sig)

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGHUP, signal.SIGTERM) if not self.is_headless else ():  # not in run_test()
            loop.add_signal_handler(sig, hang_up, sig)

    # -- output ----------------------------------------------------------------------------
    def notice(self, text: str, level: str = "info") -> None:
        from auger.tui.widgets.messages import Notice

        self.call_later(self.transcript.add, Notice(text, level))

    async def write_info(self, markdown: str) -> None:
        from auger.tui.widgets.messages import InfoBlock

        await self.transcript.add(InfoBlock(markdown))

    # -- what commands get ------------------------------------------------------------------
    def commands(self) -> CommandContext:
        """What a slash command gets instead of the app."""
        from auger.tui.commands.context import CommandContext

        return CommandContext(
            port=self.session,
            settings=self.settings,
            state=self.state,
            facts=self.facts,
            notify=self.notice,
            write=self.write_info,
            show=self._show,
            ask=self.push_screen_wait,
            background=self._background,
            redraw=self.redraw_thread,
            refresh=self.refresh_agent,
            status=self.refresh_status,
            set_prompt=self.prompt.set_text,
            copy=self.copy_to_clipboard,
            edit=self.action_editor,
            exit=self.quit_app,
        )

    async def _show(self, screen: Screen[Any], then: Callable[[Any], Awaitable[None]] | None = None) -> None:
        async def dismissed(answer: Any) -> None:
            if then is not None:
                await then(answer)
            self.prompt.focus()

        await self.push_screen(screen, dismissed)

    def _background(self, steps: Coroutine[Any, Any, None]) -> None:
        async def then_focus() -> None:
            try:
                await steps
            finally:
                if self.screen_stack:
                    self.prompt.focus()

        self.run_worker(then_focus(), group="command", exclusive=True)

    # -- status ----------------------------------------------------------------------------
    def phase_changed(self, old: Phase, new: Phase) -> None:
        """The state machine moved: the spinner says what the app does, the prompt looks busy
        during a turn (a class on the prompt only: one on the Screen would restyle every widget
        in the transcript), and the bindings that depend on it (Esc) are checked again."""
        if not self.screen_stack:  # quiet when the screen is already gone (exit)
            return
        for bar in self.main_screen.query(StatusBar):
            bar.activity = ACTIVITY[new]
        for prompt in self.main_screen.query(PromptInput):
            prompt.set_class(new in RUNNING, "-busy")
        self.refresh_bindings()

    def refresh_status(self) -> None:
        if not (self.is_running and self.screen_stack):  # closing: a refresh (a timer, a read) came too late
            return
        bar = self.status
        session = self.session
        spec = session.model_spec if session else self.settings.model
        bar.model = spec or ""
        bar.mode = self.settings.mode
        bar.window = self.facts.context_window
        bar.context_tokens = session.context_tokens if session else 0
        thread = self.facts.thread
        thread = thread if thread and session and thread.id == session.thread_id else None
        bar.title = thread.title if thread else ""
        # the agent's folder; over --connect the server's, and the branch its thread recorded there
        project = Path(session.project) if session and session.project else self.settings.project_root
        here = project == self.settings.project_root
        branch = git_branch(project, commit_chars=8) if here else thread.git_branch if thread else None
        bar.branch = branch or ""
        shown = fmt.short_path(project) if here else str(project)  # (`~` is this machine's home)
        bar.cwd = fmt.short_path(self.settings.cwd) if here else shown
        for header in self.main_screen.query(StartHeader):
            header.model, header.project = spec, shown

    # -- actions ---------------------------------------------------------------------------
    def action_cancel(self) -> None:
        if self.session is not None and self.busy:
            self.session.cancel()
            self.state.cancel()

    async def action_rewind_key(self) -> None:
        """Esc twice on an empty prompt opens the /rewind picker (as in Claude Code)."""
        if self.prompt.text.strip():
            self._rewind_armed = 0.0
            return
        now = time.monotonic()
        if now - self._rewind_armed >= REWIND_WINDOW:
            self._rewind_armed = now
            self.status.flash("Press Esc again to rewind.", REWIND_WINDOW)
            return
        self._rewind_armed = 0.0
        from auger.tui.commands.rewind_cmds import open_rewind

        await open_rewind(self.commands())

    async def action_ctrl_c(self) -> None:
        focused = self.focused
        if isinstance(focused, TextArea) and focused.selected_text:
            focused.action_copy()
            return
        now = time.monotonic()
        if now - self._quit_armed < QUIT_WINDOW:
            await self.quit_app()
            return
        self._quit_armed = now
        if self.busy:
            self.action_cancel()
        elif self.prompt.text:
            self.prompt.clear()
        self.status.flash("Press Ctrl+C again to quit.", QUIT_WINDOW)

    def action_cycle_mode(self) -> None:
        current = self.settings.mode
        new = MODES[(MODES.index(current) + 1) % len(MODES)] if current in MODES else MODES[0]
        self.set_mode(new)

    def set_mode(self, mode: str) -> None:
        """The approval mode of the next turns (the front end owns it: it goes with each turn);
        `mode` is one of MODES (/mode checks what the user typed)."""
        self.settings.mode = mode
        self.refresh_status()

    async def action_history_search(self) -> None:
        from auger.tui.screens.history_search import HistorySearch

        async def chosen(text: str | None) -> None:
            if text is not None:
                self.prompt.set_text(text)

        await self._show(HistorySearch(self.prompt_history), chosen)

    def action_toggle_last_tool(self) -> None:
        from auger.tui.widgets.tool_row import ToolRow

        rows = self.transcript.query(ToolRow)
        if rows:
            rows.last().action_toggle_details()

    def action_scroll_transcript(self, where: str) -> None:
        """PageUp / PageDown, Shift+Up / Down, Ctrl+Home / End: the transcript moves, the focus
        stays. On a picker or dialog the keys are its own."""
        if self.screen is not self.main_screen:
            raise SkipAction()
        t = self.transcript
        moves = {"page_up": t.scroll_page_up, "page_down": t.scroll_page_down, "line_up": t.scroll_up}
        moves |= {"line_down": t.scroll_down, "top": t.scroll_home, "bottom": t.scroll_end}
        moves[where](animate=False)

    def action_toggle_todos(self) -> None:
        for panel in self.main_screen.query(TodoPanel):
            panel.toggle_class("-hidden")
