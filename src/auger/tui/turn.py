"""TurnView: maps one turn's IR events onto transcript widgets.

The main agent's blocks go into the transcript; a subagent's (events with `parent_id`) go into
the body of the `task` row that spawned it. Text is streamed into one Markdown block per run of
text; a tool call ends that run, so text after it starts a new block below the tool row.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.text import map_event, visible
from auger.tui.rewind_text import changes_line
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.messages import AssistantMessage, ChangesLine, Notice, Reasoning, UserMessage
from auger.tui.widgets.tool_row import TaskGroup, ToolRow

if TYPE_CHECKING:
    from textual.widget import Widget

    from auger.tui.app import AugerApp
    from auger.tui.widgets.input_form import InputForm


class TurnView:
    def __init__(self, app: AugerApp, shown: UserMessage | None = None) -> None:
        self.app = app
        self.shown = weakref.ref(shown) if shown is not None else None  # the prompt's block (pruned: gone)
        self.transcript = app.transcript
        self.root = app.settings.project_root
        self.text: dict[str | None, AssistantMessage] = {}  # the open text block per parent
        self.reasoning: dict[str | None, tuple[Reasoning, float]] = {}
        self.rows: dict[str, ToolRow] = {}
        self.approvals: dict[ApprovalPrompt, ToolRow] = {}
        self.forms: dict[InputForm, ToolRow | None] = {}  # MCP servers' forms not answered yet
        self.reply_parts: list[str] = []  # the main agent's text, for /copy
        self.end: ev.TurnEnded | None = None
        self._handlers: dict[type[ev.Event], Callable[[Any], Awaitable[None]]] = {
            ev.TurnStarted: self._started,
            ev.TextDelta: self._text,
            ev.ReasoningDelta: self._reasoning,
            ev.ToolCallStarted: self._tool_started,
            ev.ToolCallFinished: self._tool_finished,
            ev.ToolProgress: self._tool_progress,
            ev.ApprovalRequested: self._approval,
            ev.InputRequested: self._input,
            ev.TodosUpdated: self._todos,
            ev.ModeChanged: self._mode_changed,
            ev.SubagentFinished: self._subagent_finished,
            ev.Usage: self._usage,
            ev.FilesChanged: self._files_changed,
            ev.Notice: self._notice,
            ev.Error: self._error,
            ev.TurnEnded: self._ended,
        }

    @property
    def reply(self) -> str:
        return "".join(self.reply_parts).strip()

    async def handle(self, event: ev.Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            await handler(map_event(event, visible))  # model and tool text never drives the terminal

    async def _started(self, event: ev.TurnStarted) -> None:
        shown = self.shown() if self.shown else None
        if event.files and shown is not None:  # the agent inlined the `@path`s it names
            shown.add_class("-with-files")
            shown.tooltip = "Inlined: " + ", ".join(event.files)

    # -- placement -------------------------------------------------------------------------
    async def _mount(self, widget: Widget, parent: str | None) -> None:
        group = self.rows.get(parent) if parent else None
        if isinstance(group, TaskGroup):
            group.children_count += isinstance(widget, ToolRow)
            await group.body.mount(widget)
            group.header.refresh()
        else:
            await self.transcript.add(widget)

    async def _close_text(self, parent: str | None, *, drop_backlog: bool = False) -> None:
        block = self.text.pop(parent, None)
        if block is not None:
            await block.finish(drop_backlog=drop_backlog)
        await self._close_reasoning(parent, drop_backlog=drop_backlog)

    async def _close_reasoning(self, parent: str | None, *, drop_backlog: bool = False) -> None:
        entry = self.reasoning.pop(parent, None)
        if entry is not None:
            block, started = entry
            await block.finish(time.monotonic() - started, drop_backlog=drop_backlog)

    # -- handlers --------------------------------------------------------------------------
    async def _text(self, event: ev.TextDelta) -> None:
        parent = event.parent_id
        await self._close_reasoning(parent)
        block = self.text.get(parent)
        if block is None:
            block = self.text[parent] = AssistantMessage(classes="assistant" + (" -sub" if parent else ""))
            await self._mount(block, parent)
        if parent is None:
            self.reply_parts.append(event.text)
        block.write(event.text)

    async def _reasoning(self, event: ev.ReasoningDelta) -> None:
        entry = self.reasoning.get(event.parent_id)
        if entry is None:
            entry = self.reasoning[event.parent_id] = (Reasoning(), time.monotonic())
            await self._mount(entry[0], event.parent_id)
        entry[0].write(event.text)

    async def _tool_started(self, event: ev.ToolCallStarted) -> None:
        await self._close_text(event.parent_id)
        if event.parent_id is None:
            self.reply_parts.append("\n\n")
        kind = TaskGroup if event.name == "task" else ToolRow
        row = kind(event.call_id, event.name, event.args, self.root)
        self.rows[event.call_id] = row
        await self._mount(row, event.parent_id)

    async def _tool_finished(self, event: ev.ToolCallFinished) -> None:
        row = self.rows.get(event.call_id)
        if row is None:  # a finish without a start (should not happen): show it anyway
            row = self.rows[event.call_id] = ToolRow(event.call_id, event.name, {}, self.root)
            await self._mount(row, event.parent_id)
        await self._close_text(event.call_id)
        row.finish(event.status, event.output, event.duration_ms)
        if event.name in ("execute", "execute_stop") and event.parent_id is None:
            await self.app.refresh_jobs()  # a background command started or stopped

    async def _tool_progress(self, event: ev.ToolProgress) -> None:
        row = self.rows.get(event.call_id)
        if row is not None:
            row.report_progress(event.progress, event.total, event.message)

    def _row_for(self, request: ev.ApprovalRequested) -> ToolRow | None:
        for row in reversed(self.rows.values()):
            if row.status == "running" and row.tool_name == request.name and row.args == request.args:
                return row
        return None

    async def _approval(self, event: ev.ApprovalRequested) -> None:
        if event.decided_by == "plan":
            from auger.tui.widgets.plan_approval import PlanApproval

            prompt: ApprovalPrompt = PlanApproval(event, self.root)
        else:
            prompt = ApprovalPrompt(event, self.root)
        row = self._row_for(event)
        if row is not None:
            row.set_status("waiting")
            row.close_details()  # the approval shows the diff / command; the row shows it again after
            self.approvals[prompt] = row
        await self.transcript.add(
            prompt, after=row if row is not None and row.parent is self.transcript else None
        )
        self.app.state.ask_opened()

    async def approval_resolved(self, prompt: ApprovalPrompt) -> None:
        """The user answered: the prompt goes, its row records the decision."""
        row = self.approvals.pop(prompt, None)
        if row is not None and prompt.decision is not None:
            row.decided(prompt.decision.kind, prompt.decision.message, prompt.decision.rule)
        if prompt.request.decided_by != "plan":  # a plan stays in the transcript, with its answer
            await prompt.remove()
        self.transcript.scroll_end(animate=False)  # the turn goes on below: follow it again

    async def _input(self, event: ev.InputRequested) -> None:
        """An MCP server's form: under the tool row that is waiting for it (the last running one)."""
        from auger.tui.widgets.input_form import InputForm

        form = InputForm(event)
        running = [r for r in self.rows.values() if r.status == "running" and r.parent is self.transcript]
        row = self.forms[form] = running[-1] if running else None
        if row is not None:
            row.set_status("waiting")
        await self.transcript.add(form, after=row)
        self.app.state.ask_opened()

    def input_answered(self, form: InputForm) -> None:
        row = self.forms.pop(form, None)
        if row is not None and row.status == "waiting":
            row.set_status("running")

    async def _mode_changed(self, event: ev.ModeChanged) -> None:
        """A plan was accepted: the status bar and the next turns follow the turn's new mode."""
        self.app.set_mode(event.mode)
        await self.transcript.add(Notice(f"Mode: {event.mode} (the plan was accepted).", "info"))

    async def _todos(self, event: ev.TodosUpdated) -> None:
        if event.parent_id is None:
            self.app.todos.set_todos(event.todos)

    async def _subagent_finished(self, event: ev.SubagentFinished) -> None:
        await self._close_text(event.call_id)

    async def _usage(self, event: ev.Usage) -> None:
        self.app.facts.input_tokens += event.input_tokens
        self.app.facts.output_tokens += event.output_tokens
        if event.parent_id is None:
            await self.app.refresh_thread()  # the context size, and the title once the thread is saved

    async def _files_changed(self, event: ev.FilesChanged) -> None:
        if event.paths:
            await self._close_text(None)
            await self.transcript.add(ChangesLine(changes_line(event.turn, event.paths)))

    async def _notice(self, event: ev.Notice) -> None:
        await self.transcript.add(Notice(event.message, event.level))

    async def _error(self, event: ev.Error) -> None:
        await self.transcript.add(Notice(event.message, "error"))

    async def _ended(self, event: ev.TurnEnded) -> None:
        self.end = event
        await self.close()
        if self.app.session is not None:
            await self.app.status.read_cost(self.app.session)  # the thread's price in the status line

    async def close(self) -> None:
        """Finish every open stream; rows still running were cut short. An interrupted turn
        does not render what it had not shown yet (the thread keeps all of it)."""
        cancelled = self.end is None or self.end.reason != "done"
        interrupted = self.end is None or self.end.reason in ("cancelled", "interrupted")
        for parent in list(self.text) + list(self.reasoning):
            await self._close_text(parent, drop_backlog=interrupted)
        for form in list(self.forms):  # the core answered `cancel` to the server when the turn ended
            form.sent(ev.InputAnswer("cancel"))
        self.forms.clear()
        for row in self.rows.values():
            if row.status in ("running", "waiting"):
                row.set_status("cancelled" if cancelled else "success")
