"""AugerApp: the Textual front end. It paints first, builds the Session in a worker, and renders the
Session's events; everything it does to the agent goes through the Session's methods.

What the app is doing (booting, a turn, waiting for the user...) is `auger.tui.state.TuiState`;
what it knows of the agent is `auger.tui.facts.Facts`. Input handling (slash commands, `!shell`,
`@file`, the queue) lives in `auger.tui.prompt.inputs`; event rendering in `auger.tui.turn`; the
commands in `auger.tui.commands`, which get a `CommandContext` (`commands()`), not the app. The
agent is an `AgentPort` (`auger.core.port`): an in-process Session or a client of `auger serve`,
from the factory the CLI picked; the catalogue, models, `!command` and threads all come through it.
"""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import TextArea

from auger.errors import AugerError
from auger.tui.app_base import AppBase
from auger.tui.bindings import APP_BINDINGS, keymap_from_settings
from auger.tui.facts import Facts
from auger.tui.gcpolicy import GcPolicy, end_startup
from auger.tui.prompt.history import FILE_NAME, PromptHistory
from auger.tui.state import TuiState
from auger.tui.typing_pace import noting_keys, pace_of
from auger.tui.widgets.jobs import JobsLine
from auger.tui.widgets.prompt import PromptInput
from auger.tui.widgets.start_header import StartHeader
from auger.tui.widgets.status import StatusBar
from auger.tui.widgets.todos import TodoPanel
from auger.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.driver import Driver

    from auger.core.port import AgentPort, SessionFactory
    from auger.settings import Settings
    from auger.tui.prompt.completer import CompletionSet
    from auger.tui.prompt.files import FileIndex
    from auger.tui.prompt.inputs import InputController
    from auger.tui.screens.trust import Wants
    from auger.tui.turn import TurnView
    from auger.tui.widgets.approval import ApprovalPrompt
    from auger.tui.widgets.input_form import InputForm
    from auger.tui.widgets.messages import UserMessage

BLOCKS_CSS = Path(__file__).with_name("blocks.tcss")

# Imported after the first paint (they are not needed to draw the empty screen).
LATER = (
    "auger.tui.prompt.inputs",
    "auger.tui.turn",
    "auger.tui.replay",
    "auger.tui.widgets.messages",
    "auger.tui.widgets.approval",
    "auger.tui.widgets.tool_row",
    "auger.core.port",
)

log = logging.getLogger("auger.tui")
SCROLLBACK_MAX = 500_000  # characters of the conversation `scrollback_on_exit` prints


class AugerApp(AppBase):
    CSS_PATH = "app.tcss"
    TITLE = "auger"
    BINDINGS: ClassVar[list[Binding]] = APP_BINDINGS  # type: ignore[assignment]

    def __init__(
        self,
        settings: Settings,
        session_factory: SessionFactory,
        *,
        thread_id: str | None = None,
        first_run: bool = True,
        project_wants: Wants | None = None,
    ) -> None:
        super().__init__()
        pace_of(self)  # now: the driver's input thread reads it
        self.settings = settings
        self.session_factory = session_factory
        self.resume_id = thread_id
        self.first_run = first_run  # no model configured here: ask for one (not with --connect)
        self.project_wants = project_wants  # asks before the agent is built when it finds something
        self.session: AgentPort | None = None
        self.state: TuiState[UserMessage] = TuiState(self.phase_changed)
        self.facts = Facts()
        self.prompt_history = PromptHistory(settings.home / FILE_NAME)
        self._shown: UserMessage | None = None
        self.gc = GcPolicy(
            self.set_timer, before_collect=self._release_offscreen, busy=lambda: pace_of(self).busy
        )
        self.view: TurnView | None = None
        theme = str(settings.get("tui.theme") or "")
        if theme != self.theme and theme in self.available_themes:
            self.theme = theme

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, telling `typing_pace` of each key as soon as it is read."""
        return noting_keys(super().get_driver_class())

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # Only what the first paint needs; the todo panel and completion menu come right after.
        budget = int(self.settings.get("tui.prune_after") or 400)
        yield Transcript(budget, header=lambda: StartHeader(self.settings), id="transcript")
        yield PromptInput(self.prompt_history, id="prompt")
        yield StatusBar(id="status")

    @cached_property
    def files(self) -> FileIndex:
        """The agent's project files, for `@path` completion (read through the port once it is up)."""
        from auger.tui.prompt.files import FileIndex

        return FileIndex(
            self._project_files, lambda read: self.run_worker(read, group="files", exclusive=True)
        )

    async def _project_files(self) -> list[str]:
        if self.session is None:
            return []
        try:
            return await self.session.project_files()
        except Exception as exc:  # e.g. a LangGraph Server: no file list (the agent reads files itself)
            log.warning("reading the project's files failed: %s", exc)
            return []

    @cached_property
    def inputs(self) -> InputController:
        from auger.tui.prompt.inputs import InputController

        return InputController(self)

    def on_mount(self) -> None:
        self.call_after_refresh(end_startup)  # the collector, off since `auger` started (gcpolicy.py)
        self.catch_hangup()
        keymap = keymap_from_settings(self.settings.data)
        if keymap:
            self.set_keymap(keymap)
        self.prompt.focus()
        self.prompt.complete = self._completions
        self.refresh_status()
        if self.first_run and not self.settings.model:
            from auger.tui.screens.first_run import FirstRunScreen

            self.state.configure()
            self.push_screen(FirstRunScreen(self.settings), self._configured)
        else:
            self.phase_changed(self.state.phase, self.state.phase)
            self.call_after_refresh(self._after_first_paint)

    async def _after_first_paint(self) -> None:
        """The screen is up: add what the first paint did without (transcript styles, todo panel,
        completion menu), load the rest of the UI, then build the agent in the background."""
        from auger.tui.widgets.completion import CompletionMenu

        self.stylesheet.read(BLOCKS_CSS)
        self.refresh_css(animate=False)
        menu = CompletionMenu(id="completions")
        await self.mount(TodoPanel(id="todos"), JobsLine(id="jobs"), menu, before=self.prompt)
        self.prompt.menu = menu
        self.refresh_status()
        import importlib

        for name in LATER:
            importlib.import_module(name)
        self.inputs  # noqa: B018 - registers the slash commands
        from auger.tui.screens.trust import trust_question

        wants = self.project_wants  # None over --connect: the server's project, its trust
        question = trust_question(self.settings, wants) if wants is not None else None
        if question is None:
            self._trust_answered(None)
        else:  # nothing of the project (servers, hooks) runs before the answer
            self.push_screen(question, self._trust_answered)

    def _trust_answered(self, answer: str | None) -> None:
        """Boot, after the trust question if there was one (its settings' warnings then)."""
        if answer == "trust":
            from auger.tui.screens.trust import trusted_settings

            try:
                self.settings = trusted_settings(self.settings)
                self.notice(f"Trusted {self.settings.project_root}: its settings, servers and hooks apply.")
            except AugerError as exc:
                self.notice(f"Could not trust the project: {exc}", "error")
        for warning in self.settings.warnings:
            self.notice(warning, "warning")
        self.boot()

    def _configured(self, settings: Settings | None) -> None:
        if settings is None:
            self.exit(0)
            return
        self.settings = settings
        self.state.boot()
        self.call_after_refresh(self._after_first_paint)

    def _release_offscreen(self) -> None:
        if self.screen_stack:
            for transcript in self.main_screen.query(Transcript):
                transcript.release_offscreen()

    # -- the session -----------------------------------------------------------------------
    @work(exclusive=True, group="boot")
    async def boot(self) -> None:
        try:
            self.session = await self.session_factory(self.settings, self.resume_id)
        except AugerError as exc:
            self.state.boot_failed(str(exc))
            self.notice(f"Cannot start the agent: {exc}", "error")
            return
        except Exception as exc:
            log.exception("building the session failed")
            self.state.boot_failed(f"{type(exc).__name__}: {exc}")
            self.notice(f"Cannot start the agent: {self.state.error} (details in the log).", "error")
            return
        self.session.give_way_to(pace_of(self))  # keys first: the agent's work waits for their echo
        self.state.booted()
        self.gc.start()
        if self.resume_id:
            await self.show_history()
        await self.refresh_agent()
        self.files.refresh()  # for `@path` completion
        await self.inputs.drain()

    async def refresh_jobs(self) -> None:
        """The background-commands line under the todo list (`JobsLine`)."""
        for line in self.main_screen.query(JobsLine) if self.screen_stack else ():
            await line.read(self.session)

    async def refresh_thread(self) -> None:
        """Read the thread again (title, model, window) and redraw the status."""
        if self.session is not None:
            try:
                self.facts.thread = await self.session.thread_info()
            except AugerError as exc:
                log.warning("reading the thread failed: %s", exc)
        self.refresh_status()

    async def refresh_agent(self) -> None:
        """Read the thread and the catalogue again (once the agent is up), then redraw the status."""
        if self.session is None:
            self.refresh_status()
            return
        facts = self.facts
        try:
            facts.thread = await self.session.thread_info()
            facts.catalogue = await self.session.catalogue()
            if any(server.status in ("starting", "connecting") for server in facts.catalogue.mcp or []):
                self.set_timer(1.0, self.refresh_agent)  # its prompts join the menu once it connects
            if not facts.model_choices:  # for `/model <Tab>`; /model reads them again
                facts.model_choices = [c.spec for c in await self.session.models()]
        except AugerError as exc:
            log.warning("reading the thread or the catalogue failed: %s", exc)
        finally:
            facts.asked = True  # a `/name` waits for the catalogue no longer (`InputController.command`)
        self.refresh_status()
        await self.refresh_jobs()  # a resumed or switched thread: its session's background commands

    async def show_history(self, lead: str = "Resumed thread {id}") -> None:
        """Render the current thread's saved conversation (after resume or a thread switch), with
        one notice: `lead` (`{id}` is the thread's short id) and the number of turns so far (none
        when `lead` is empty)."""
        from auger.core.port import counted
        from auger.tui.replay import replay

        if self.session is not None:
            turns = await replay(self, await self.session.history())
            self.facts.turns = max(self.facts.turns, 1)
            if lead:
                self.notice(f"{lead.format(id=self.session.thread_id[:8])}: {counted(turns, 'turn')} so far.")

    async def redraw_thread(self, lead: str | None) -> None:
        """Show the current thread as it is saved now, from an empty transcript (after a switch, or
        a rewind of its conversation); `lead`: see show_history (None: a new thread, nothing to show)."""
        await self.transcript.clear()
        self.gc.cleared()
        self.todos.set_todos([])
        self.facts.new_thread()
        if lead is not None:
            await self.show_history(lead)
        await self.refresh_agent()

    # -- a turn ----------------------------------------------------------------------------
    def start_turn(self, prompt: str, shown: UserMessage, *, typed: str | None = None) -> None:
        """Run `prompt`; `typed`: what the user typed, when `prompt` is its expansion."""
        self.state.turn_started()
        self._shown = shown
        self.run_turn(prompt, None if typed == prompt else typed)

    @work(group="turn")
    async def run_turn(self, prompt: str, typed: str | None = None) -> None:
        # Only plain data goes in the worker's arguments: a finished worker stays reachable for a
        # while (asyncio keeps cancelled timers created during the turn, and their contexts name
        # the worker), and a widget in its arguments would keep a pruned transcript alive.
        from auger.core.port import TurnOptions
        from auger.tui.turn import TurnView

        assert self.session is not None
        shown, self._shown = self._shown, None
        view = self.view = TurnView(self, shown)
        if shown is not None:
            shown.remove_class("-queued")
        del shown
        self.facts.turns += 1
        self.gc.turn_started()
        try:
            options = TurnOptions(self.settings.mode, typed=typed, mentions=True)  # the agent inlines @paths
            async for event in self.session.send(prompt, options):
                await view.handle(event)
        except AugerError as exc:
            self.notice(str(exc), "error")
        except Exception as exc:
            log.exception("turn failed")
            self.notice(f"Internal error: {type(exc).__name__}: {exc} (details in the log).", "error")
        finally:
            self.gc.turn_ended()
            self.facts.last_reply = view.reply or self.facts.last_reply
            self.view = None
            self.state.turn_ended()
            if self.is_running and self.screen_stack:  # not when the app is shutting down mid-turn
                await view.close()
                await self.refresh_agent()
                if self.is_running:  # (the shutdown may have begun meanwhile: its screen is emptied)
                    self.prompt.focus()
                    await self.inputs.drain()

    async def on_approval_prompt_resolved(self, message: ApprovalPrompt.Resolved) -> None:
        self.state.ask_closed()
        # now, not deferred as `focus()` is: removing the focused prompt first would hand the focus
        # (and the view) to the transcript's first focusable block, an old tool row at its top
        self.main_screen.set_focus(self.prompt, scroll_visible=False)
        if self.view is not None:
            await self.view.approval_resolved(message.prompt)
        else:
            await message.prompt.remove()

    async def on_input_form_answered(self, message: InputForm.Answered) -> None:
        """Send an MCP server's form answer where the agent runs; content it refuses stays in the form."""
        form = message.form
        try:
            assert self.session is not None
            await self.session.resolve_input(form.request.request_id, message.answer)
        except AugerError as exc:
            form.refused(str(exc))
            return
        form.sent(message.answer)
        if self.view is not None:
            self.view.input_answered(form)
        self.state.ask_closed()
        self.prompt.focus()

    # -- input -----------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    async def _submitted(self, message: PromptInput.Submitted) -> None:
        await self.inputs.submit(message.text)

    @on(TextArea.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.prompt.sync_menu()

    def _completions(self, text: str, cursor: int) -> CompletionSet | None:
        from auger.tui.prompt.completer import completions

        return completions(self.facts, lambda: self.files, text, cursor)

    @on(Transcript.Pruned)
    def _pruned(self) -> None:
        self.gc.pruned()

    @on(PromptInput.EndOfInput)
    async def _eof(self) -> None:
        await self.quit_app()

    # -- actions ---------------------------------------------------------------------------
    async def action_editor(self) -> None:
        from auger.tui.prompt.editor import edit_in_editor

        text = await edit_in_editor(self, self.prompt.text)
        if text is not None:
            self.prompt.set_text(text)
        self.prompt.focus()

    async def on_unmount(self) -> None:
        self.gc.stop()
        session, self.session = self.session, None
        if session is not None:
            session.give_way_to(None)
            self.exit_thread_id = session.thread_id if self.facts.turns else None
            if self.exit_thread_id and self.settings.get("tui.scrollback_on_exit"):
                self.exit_transcript = await self._scrollback(session)
            try:
                await session.aclose()
            except Exception:
                log.exception("closing the session failed")

    exit_thread_id: str | None = None
    exit_transcript = ""  # `[tui] scrollback_on_exit`: the conversation, printed once the screen is gone

    async def _scrollback(self, session: AgentPort) -> str:
        """The thread as Markdown for the terminal's scrollback: control characters made visible,
        at most its last SCROLLBACK_MAX characters."""
        from auger.core.text import visible

        try:
            text = visible(await session.transcript("markdown")).strip()
        except Exception:
            log.exception("reading the thread for the scrollback failed")
            return ""
        if len(text) > SCROLLBACK_MAX:
            cut = f"(earlier part not shown: auger threads show {session.thread_id[:8]} --markdown)"
            text = cut + "\n\n" + text[-SCROLLBACK_MAX:]
        return text

    def resume_hint(self) -> str | None:
        thread = self.exit_thread_id or (
            self.session.thread_id if self.session and self.facts.turns else None
        )
        return f"auger -r {thread}" if thread else None
