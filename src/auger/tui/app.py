"""AugerApp: the Textual front end. It paints first, builds the Session in a worker, and renders the
Session's events; everything it does to the agent goes through the Session's methods.

Input handling (slash commands, `!shell`, `@file`, the queue) lives in `auger.tui.inputs`; event
rendering in `auger.tui.turn`; the commands in `auger.tui.commands`.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import TextArea

from auger.errors import AugerError
from auger.tui import format as fmt
from auger.tui.bindings import APP_BINDINGS, keymap_from_settings
from auger.tui.files import FileIndex
from auger.tui.gitinfo import git_branch
from auger.tui.history import FILE_NAME, PromptHistory
from auger.tui.inputs import InputController
from auger.tui.turn import TurnView
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.completion import CompletionMenu
from auger.tui.widgets.messages import InfoBlock, Notice, UserMessage
from auger.tui.widgets.prompt import PromptInput
from auger.tui.widgets.status import StatusBar
from auger.tui.widgets.todos import TodoPanel
from auger.tui.widgets.tool_row import ToolRow
from auger.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from auger.core.session import Session
    from auger.settings import Settings
    from auger.tui.boot import SessionFactory

log = logging.getLogger("auger.tui")
QUIT_WINDOW = 2.0  # seconds between the two Ctrl+C presses


class AugerApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "auger"
    BINDINGS: ClassVar[list[Binding]] = APP_BINDINGS  # type: ignore[assignment]
    busy: reactive[bool] = reactive(False)

    def __init__(
        self, settings: Settings, session_factory: SessionFactory, *, thread_id: str | None = None
    ) -> None:
        super().__init__()
        self.settings = settings
        self.session_factory = session_factory
        self.resume_id = thread_id
        self.session: Session | None = None
        self.boot_error: str | None = None
        self.prompt_history = PromptHistory(settings.home / FILE_NAME)
        self.files = FileIndex(settings.project_root)
        self.inputs = InputController(self)
        self.last_reply = ""
        self.turns = 0
        self.usage_totals = {"input": 0, "output": 0}
        self.view: TurnView | None = None
        self._quit_armed = 0.0
        self._windows: dict[str, int] = {}
        theme = str(settings.get("tui.theme") or "")
        if theme in self.available_themes:
            self.theme = theme

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        menu = CompletionMenu(id="completions")
        yield Transcript(int(self.settings.get("tui.prune_after") or 400), id="transcript")
        yield TodoPanel(id="todos")
        yield menu
        yield PromptInput(self.prompt_history, menu, id="prompt")
        yield StatusBar(id="status")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def todos(self) -> TodoPanel:
        return self.query_one(TodoPanel)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    def on_mount(self) -> None:
        keymap = keymap_from_settings(self.settings.data)
        if keymap:
            self.set_keymap(keymap)
        self.prompt.focus()
        self.refresh_status()
        for warning in self.settings.warnings:
            self.notice(warning, "warning")
        if not self.settings.model:
            from auger.tui.screens.first_run import FirstRunScreen

            self.push_screen(FirstRunScreen(self.settings), self._configured)
        else:
            self.boot()

    def _configured(self, settings: Settings | None) -> None:
        if settings is None:
            self.exit(0)
            return
        self.settings = settings
        self.refresh_status()
        self.boot()

    # -- the session -----------------------------------------------------------------------
    @work(exclusive=True, group="boot")
    async def boot(self) -> None:
        self.set_activity("starting")
        try:
            self.session = await self.session_factory(self.settings, self.resume_id)
        except AugerError as exc:
            self.boot_error = str(exc)
            self.notice(f"Cannot start the agent: {exc}", "error")
            return
        except Exception as exc:
            log.exception("building the session failed")
            self.boot_error = f"{type(exc).__name__}: {exc}"
            self.notice(f"Cannot start the agent: {self.boot_error} (details in the log).", "error")
            return
        finally:
            self.set_activity("")
        if self.resume_id:
            await self.show_history()
        self.refresh_status()
        await self.inputs.drain()

    async def show_history(self) -> None:
        """Render the current thread's saved conversation (after resume or a thread switch)."""
        from auger.tui.replay import replay

        if self.session is not None:
            await replay(self, await self.session.history())
            self.turns = max(self.turns, 1)

    async def switch_thread(self, thread_id: str | None) -> None:
        """Open another thread (None: a new one) and show its conversation."""
        assert self.session is not None
        await self.session.open_thread(thread_id)
        await self.transcript.clear()
        self.todos.set_todos([])
        self.last_reply = ""
        self.turns = 0
        if thread_id is not None:
            await self.show_history()
        self.refresh_status()

    # -- a turn ----------------------------------------------------------------------------
    def start_turn(self, prompt: str, shown: UserMessage) -> None:
        self.busy = True
        self.run_turn(prompt, shown)

    @work(group="turn")
    async def run_turn(self, prompt: str, shown: UserMessage) -> None:
        assert self.session is not None
        self.busy = True
        self.set_activity("working")
        view = self.view = TurnView(self)
        shown.remove_class("-queued")
        self.turns += 1
        try:
            async for event in self.session.send(prompt):
                await view.handle(event)
        except AugerError as exc:
            self.notice(str(exc), "error")
        except Exception as exc:
            log.exception("turn failed")
            self.notice(f"Internal error: {type(exc).__name__}: {exc} (details in the log).", "error")
        finally:
            self.last_reply = view.reply or self.last_reply
            self.view = None
            self.busy = False
            if self.screen_stack:  # not when the app is shutting down mid-turn
                await self._after_turn(view)

    async def _after_turn(self, view: TurnView) -> None:
        await view.close()
        self.set_activity("")
        self.refresh_status()
        self.prompt.focus()
        await self.inputs.drain()

    def approval_opened(self, prompt: ApprovalPrompt) -> None:
        self.set_activity("waiting for you")
        prompt.focus()

    @on(ApprovalPrompt.Resolved)
    async def _approval_resolved(self, message: ApprovalPrompt.Resolved) -> None:
        self.set_activity("working" if self.busy else "")
        self.prompt.focus()
        if self.view is not None:
            await self.view.approval_resolved(message.prompt)
        else:
            await message.prompt.remove()

    # -- status ----------------------------------------------------------------------------
    def set_activity(self, text: str) -> None:
        """What the spinner says ("" = idle); quiet when the screen is already gone (exit)."""
        bars = self.query(StatusBar)
        if bars:
            bars.first().activity = text

    def context_window(self, spec: str | None) -> int:
        if not spec:
            return 0
        if spec not in self._windows:
            from auger.core.models import parse_spec

            try:
                window = parse_spec(spec, self.settings.providers).context_window
            except AugerError:
                window = 0
            override = self.settings.get("context_window")
            self._windows[spec] = override if isinstance(override, int) and override > 0 else window
        return self._windows[spec]

    def refresh_status(self) -> None:
        bar = self.status
        session = self.session
        spec = session.model_spec if session else self.settings.model
        bar.model = spec or ""
        bar.mode = session.mode if session else self.settings.mode
        bar.window = self.context_window(spec)
        bar.context_tokens = session.context_tokens if session else 0
        bar.title = self.thread_title()
        bar.branch = git_branch(self.settings.project_root) or ""
        bar.cwd = fmt.short_path(self.settings.cwd)

    def thread_title(self) -> str:
        store = getattr(self.session, "threads", None)
        if store is None or self.session is None:
            return ""
        try:
            info = store.get(self.session.thread_id)
        except Exception:
            return ""
        return info.title if info else ""

    # -- output ----------------------------------------------------------------------------
    def notice(self, text: str, level: str = "info") -> None:
        self.call_later(self.transcript.add, Notice(text, level))

    async def write_info(self, markdown: str) -> None:
        await self.transcript.add(InfoBlock(markdown))

    # -- input -----------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    async def _submitted(self, message: PromptInput.Submitted) -> None:
        await self.inputs.submit(message.text)

    @on(TextArea.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.inputs.update_completions()

    @on(PromptInput.EndOfInput)
    async def _eof(self) -> None:
        await self.quit_app()

    # -- actions ---------------------------------------------------------------------------
    def watch_busy(self, busy: bool) -> None:
        if self.screen_stack:
            self.screen_stack[0].set_class(busy, "-busy")
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.busy
        return True

    def action_cancel(self) -> None:
        if self.session is not None and self.busy:
            self.session.cancel()
            self.set_activity("stopping")

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
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)

    def action_cycle_mode(self) -> None:
        from auger.core.context import MODES

        current = self.session.mode if self.session else self.settings.mode
        new = MODES[(MODES.index(current) + 1) % len(MODES)] if current in MODES else MODES[0]
        self.set_mode(new)

    def set_mode(self, mode: str) -> None:
        if self.session is not None:
            self.session.set_mode(mode)
        self.settings.mode = mode
        self.refresh_status()

    def action_history_search(self) -> None:
        from auger.tui.screens.history_search import HistorySearch

        def chosen(text: str | None) -> None:
            if text is not None:
                self.prompt.set_text(text)
            self.prompt.focus()

        self.push_screen(HistorySearch(self.prompt_history), chosen)

    async def action_editor(self) -> None:
        from auger.tui.editor import edit_in_editor

        text = await edit_in_editor(self, self.prompt.text)
        if text is not None:
            self.prompt.set_text(text)
        self.prompt.focus()

    def action_toggle_last_tool(self) -> None:
        rows = self.transcript.query(ToolRow)
        if rows:
            rows.last().action_toggle_details()

    def action_toggle_todos(self) -> None:
        self.todos.toggle_class("-hidden")

    async def quit_app(self) -> None:
        if self.session is not None and self.busy:
            self.session.cancel()
        self.exit(0)

    async def on_unmount(self) -> None:
        await self.close_session()

    async def close_session(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            self.exit_thread_id = session.thread_id if self.turns else None
            try:
                await session.aclose()
            except Exception:
                log.exception("closing the session failed")

    exit_thread_id: str | None = None

    def resume_hint(self) -> str | None:
        thread = self.exit_thread_id or (self.session.thread_id if self.session and self.turns else None)
        return f"auger -r {thread}" if thread else None
