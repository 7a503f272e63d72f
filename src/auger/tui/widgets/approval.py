"""An approval asked inline in the transcript: `y` approve, `n` reject (then an optional message to
the agent), `a` always allow the offered rule in this thread, `A` allow and save it to the project (`p`) or
user (`u`) config, Esc reject.

It takes the keys only once nobody has typed for `GRACE` s: keys typed before it could be seen (the
`a` of "about" in the next thought) go on into the prompt, never answer it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar, Literal

from textual import on
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from auger.core.events import ApprovalDecision, ApprovalRequested
from auger.tui import format as fmt
from auger.tui.diffs import tool_diff
from auger.tui.typing_pace import pace_of
from auger.tui.widgets.tool_row import call_view

HINT = "y approve · n/Esc reject · a always allow {rule} in this thread · A and save it"
TYPING = "(you are typing: keys go to your prompt) "
SAVE_HINT = "Save allow rule {rule} to: p project config (.auger/config.toml) · u user config · Esc back"
GRACE = 1.0  # s without a key before an approval takes the keys
SCOPE_WORDS = {"project": "saved to the project config", "user": "saved to the user config"}


class ApprovalPrompt(Vertical, can_focus=True):
    BINDINGS: ClassVar = [
        Binding("y", "approve", "Approve", id="approval.approve"),
        Binding("n", "reject_with_message", "Reject", id="approval.reject"),
        Binding("a", "always", "Always allow", id="approval.always"),
        Binding("A", "choose_scope", "Always allow and save", id="approval.always_save"),
        Binding("p", "save('project')", "Save to the project config", id="approval.save_project"),
        Binding("u", "save('user')", "Save to the user config", id="approval.save_user"),
        Binding("escape", "reject", "Reject", id="approval.escape"),
    ]

    class Resolved(Message):
        def __init__(self, prompt: ApprovalPrompt, decision: ApprovalDecision) -> None:
            super().__init__()
            self.prompt = prompt
            self.decision = decision

    def __init__(self, request: ApprovalRequested, project_root: Path) -> None:
        super().__init__(classes="approval")
        self.request = request
        self.project_root = project_root
        self.decision: ApprovalDecision | None = None
        self.choosing_scope = False  # after `A`: p / u pick the config file, Esc goes back

    def compose(self):  # type: ignore[no-untyped-def]
        req = self.request
        diff = tool_diff(req.name, req.args, self.project_root)
        # the command or arguments once, in the view below; a diff does not name its file
        where = fmt.key_arg(req.name, req.args, 100) if diff is not None else ""
        yield Static(f"Allow {req.name}{' ' + where if where else ''}?", markup=False, classes="title")
        yield call_view(req.name, req.args, diff, max_lines=40)
        why = req.description.partition(" needs approval: ")[2] or req.description  # not the call again
        if why and not why.startswith("Tool execution requires approval"):
            yield Static(f"Asked because: {why}", markup=False, classes="why")
        yield Static(self.hint, markup=False, classes="hint")
        yield Input(placeholder="Tell the agent why (Enter to reject, Esc for no message)", classes="reason")

    def on_mount(self) -> None:
        self._take_keys()

    def _take_keys(self) -> None:
        """Focus this prompt once no key has come for `GRACE` s; until then keys go where they went."""
        if self.resolved:
            return
        pace = pace_of(self.app)
        quiet = time.monotonic() - max(pace.last_key_at, pace.arrived_at)
        if quiet < GRACE:
            self.query_one(".hint", Static).update(TYPING + self.hint)
            self.set_timer(GRACE - quiet, self._take_keys)
        else:
            self.query_one(".hint", Static).update(self.hint)
            self.focus()

    @property
    def hint(self) -> str:
        """The keys this prompt answers to."""
        return HINT.format(rule=self.rule)

    @property
    def rule(self) -> str:
        """What `a` allows for the rest of the thread (the core's suggestion for this call)."""
        return self.request.suggested_rule or self.request.name

    @property
    def resolved(self) -> bool:
        return self.decision is not None

    def resolve(self, decision: ApprovalDecision) -> None:
        if self.resolved:
            return
        self.decision = decision
        self.request.respond(decision)
        self.add_class("-resolved", f"-{decision.kind}")
        self.query_one(".hint", Static).update(self.outcome(decision))
        self.can_focus = False
        self.post_message(self.Resolved(self, decision))

    def outcome(self, decision: ApprovalDecision) -> str:
        """The line the answered prompt keeps."""
        words = {"approve": "approved", "approve_always": f"always allowed {self.rule}"}
        text = words.get(decision.kind, "rejected")
        if decision.persist:
            text += f" ({SCOPE_WORDS[decision.persist]})"
        if decision.message:
            text += f": {decision.message}"
        return text

    def action_approve(self) -> None:
        self.resolve(ApprovalDecision("approve"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save":  # p / u only mean something after `A`
            return self.choosing_scope
        return True

    def action_always(self) -> None:
        self.resolve(ApprovalDecision("approve_always", rule=self.rule))

    def action_choose_scope(self) -> None:
        if self.resolved:
            return
        self.choosing_scope = True
        self.query_one(".hint", Static).update(SAVE_HINT.format(rule=self.rule))

    def action_save(self, scope: Literal["project", "user"]) -> None:
        self.choosing_scope = False
        self.resolve(ApprovalDecision("approve_always", rule=self.rule, persist=scope))

    def action_reject(self) -> None:
        if self.choosing_scope:  # Esc backs out of the scope question, it does not reject
            self.choosing_scope = False
            self.query_one(".hint", Static).update(self.hint)
            return
        self.resolve(ApprovalDecision("reject"))

    def action_reject_with_message(self) -> None:
        if self.resolved:
            return
        self.add_class("-asking")
        self.query_one(".reason", Input).focus()

    @on(Input.Submitted, ".reason")
    def _reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.resolve(self.rejection(event.value.strip()))

    def rejection(self, reason: str) -> ApprovalDecision:
        """The answer `n` + a typed reason gives (the agent reads the reason)."""
        return ApprovalDecision("reject", reason or None)
