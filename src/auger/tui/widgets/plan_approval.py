"""A plan the agent presents in plan mode (`present_plan`), asked inline like any approval: the
plan rendered as markdown, then `y` accept and go on in manual mode (edits and commands ask),
`a` accept and go on in auto-edit (edits go through), `n` keep planning (then tell the agent
what to change: the feedback is what the model reads), Esc keep planning without a message.

Accepting answers the approval with `ApprovalDecision(mode=...)`: the core switches the turn's
mode and the agent carries the plan out in the same turn; the app follows `ModeChanged`."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding
from textual.widgets import Input, Static

from auger.core.events import ApprovalDecision
from auger.tui.markdown.blocks import Chunk
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.markdown_view import MarkdownLines

HINT = (
    "y accept (manual: edits ask) · a accept (auto-edit) · n keep planning, with feedback · Esc keep planning"
)
KEEP_PLANNING = "The user wants to keep planning. Revise the plan, then present it again."
FEEDBACK = "The user wants to keep planning and says: {feedback}\nRevise the plan, then present it again."


class PlanApproval(ApprovalPrompt, inherit_bindings=False):
    BINDINGS: ClassVar = [
        Binding("y", "accept('manual')", "Accept the plan (manual)", id="plan.accept_manual"),
        Binding("a", "accept('auto-edit')", "Accept the plan (auto-edit)", id="plan.accept_auto_edit"),
        Binding("n", "reject_with_message", "Keep planning (with feedback)", id="plan.keep_planning"),
        Binding("escape", "reject", "Keep planning", id="plan.escape"),
    ]

    feedback = ""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("Plan ready: accept it, or keep planning?", markup=False, classes="title")
        yield MarkdownLines([Chunk((self.plan.strip() or "(an empty plan)") + "\n")], classes="plan")
        yield Static(self.hint, markup=False, classes="hint")
        yield Input(placeholder="What should change in the plan? (Enter to send)", classes="reason")

    @property
    def hint(self) -> str:
        return HINT

    @property
    def plan(self) -> str:
        return str(self.request.args.get("plan") or "")

    def action_accept(self, mode: str) -> None:
        self.resolve(ApprovalDecision("approve", mode=mode))

    def action_reject(self) -> None:
        self.resolve(self.rejection(""))

    def rejection(self, reason: str) -> ApprovalDecision:
        self.feedback = reason
        return ApprovalDecision("reject", FEEDBACK.format(feedback=reason) if reason else KEEP_PLANNING)

    def outcome(self, decision: ApprovalDecision) -> str:
        if decision.kind != "reject":
            return f"plan accepted: going on in {decision.mode or 'manual'} mode"
        return f"keep planning: {self.feedback}" if self.feedback else "keep planning"
