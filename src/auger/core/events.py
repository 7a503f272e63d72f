"""The event IR: what a turn looks like to every front end.

Frozen dataclasses with a `type` tag; `to_dict()` gives the JSON shape printed by headless
`--output-format stream-json`, mapped by the HTTP server and rendered by the TUI.

`parent_id` on an event is the id of the `task` tool call (subagent) that produced it, or None
for the main agent.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

ApprovalKind = Literal["approve", "reject", "approve_always"]
InputAction = Literal["accept", "decline", "cancel"]
EndReason = Literal["done", "cancelled", "error", "turn_limit", "timeout", "interrupted"]


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            if f.metadata.get("wire", True):
                out[f.name] = getattr(self, f.name)
        return out


@dataclass(frozen=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    thread_id: str
    prompt: str
    model: str | None = None
    files: list[str] = field(default_factory=list)  # the `@path`s inlined into `prompt` (`mentions`)


@dataclass(frozen=True)
class TextDelta(Event):
    type: ClassVar[str] = "text_delta"
    text: str
    parent_id: str | None = None


@dataclass(frozen=True)
class ReasoningDelta(Event):
    type: ClassVar[str] = "reasoning_delta"
    text: str
    parent_id: str | None = None


@dataclass(frozen=True)
class ToolCallStarted(Event):
    type: ClassVar[str] = "tool_call_started"
    call_id: str
    name: str
    args: dict[str, Any]
    parent_id: str | None = None


@dataclass(frozen=True)
class ToolCallFinished(Event):
    type: ClassVar[str] = "tool_call_finished"
    call_id: str
    name: str
    output: str
    status: Literal["success", "error", "rejected"] = "success"
    duration_ms: int | None = None
    parent_id: str | None = None


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running tool reported progress (MCP `notifications/progress`); `total` None: unknown."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None
    parent_id: str | None = None


@dataclass(frozen=True)
class ApprovalDecision:
    """The answer to an ApprovalRequested: approve, reject (with a message to the agent), or
    approve_always: allow `rule` (default: the request's `suggested_rule`, which provably matches
    the call) for the rest of the thread, and with `persist` also write it to the "project" or
    "user" config's `[permissions] allow`. `mode` (with approve): go on in this approval mode —
    a plan accepted (`decided_by` "plan") runs in manual or auto-edit from its next step on."""

    kind: ApprovalKind = "approve"
    message: str | None = None
    rule: str | None = None
    persist: Literal["project", "user"] | None = None
    mode: str | None = None


@dataclass(frozen=True)
class ApprovalRequested(Event):
    type: ClassVar[str] = "approval_requested"
    request_id: str
    call_id: str
    name: str
    args: dict[str, Any]
    description: str = ""  # why it needs approval: the ask rule, protected path or mode
    parent_id: str | None = None
    suggested_rule: str = ""  # the "always allow" rule for this call, e.g. "execute(git status *)"
    # what asks: "mode", "rule" (an ask rule), "protected" (a protected path) or "plan" (present_plan:
    # args["plan"] is the plan, markdown; approve with a `mode` to accept it, reject with feedback)
    decided_by: str = "mode"
    future: asyncio.Future[ApprovalDecision] | None = field(
        default=None, compare=False, repr=False, metadata={"wire": False}
    )

    def respond(self, decision: ApprovalDecision) -> None:
        """Answer the request; the turn continues with this decision."""
        if self.future is not None and not self.future.done():
            self.future.get_loop().call_soon_threadsafe(_set_result, self.future, decision)


@dataclass(frozen=True)
class InputAnswer:
    """The answer to an InputRequested: `accept` with `content` (the form's values, which must fit
    its schema), `decline` (the user said no) or `cancel` (dismissed without a choice)."""

    action: InputAction
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class InputRequested(Event):
    """An MCP server asks the user to fill in a form (`elicitation/create`): `message` says what
    for, `schema` is the flat JSON schema of `auger.core.forms`. The turn waits (the tool call
    that asked is still running) until the front end answers with `resolve_input`; the turn
    cancelled or ended answers `cancel`. Asked in every mode: it is input, not a permission."""

    type: ClassVar[str] = "input_requested"
    request_id: str
    server: str
    message: str
    schema: dict[str, Any]
    future: asyncio.Future[InputAnswer] | None = field(
        default=None, compare=False, repr=False, metadata={"wire": False}
    )

    def respond(self, answer: InputAnswer) -> None:
        if self.future is not None and not self.future.done():
            self.future.get_loop().call_soon_threadsafe(_set_result, self.future, answer)


def _set_result(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


@dataclass(frozen=True)
class TodosUpdated(Event):
    type: ClassVar[str] = "todos_updated"
    todos: list[dict[str, Any]]
    parent_id: str | None = None


@dataclass(frozen=True)
class SubagentStarted(Event):
    type: ClassVar[str] = "subagent_started"
    call_id: str
    subagent_type: str
    description: str = ""


@dataclass(frozen=True)
class SubagentFinished(Event):
    type: ClassVar[str] = "subagent_finished"
    call_id: str
    subagent_type: str
    output: str = ""


@dataclass(frozen=True)
class Usage(Event):
    type: ClassVar[str] = "usage"
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    context_tokens: int = 0
    model: str | None = None
    parent_id: str | None = None


@dataclass(frozen=True)
class FilesChanged(Event):
    """Near the end of a turn that ran a file-changing tool: the project files it changed on disk
    (relative paths, shell-made changes included; possibly none). `turn` is the user turn, as
    `auger threads diff ID --turn N` and `auger threads rewind ID --to N` count them."""

    type: ClassVar[str] = "files_changed"
    turn: int
    paths: list[str]
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ModeChanged(Event):
    """The turn goes on in another approval mode (a plan was accepted); the front end shows it and
    sends its next turns in it."""

    type: ClassVar[str] = "mode_changed"
    mode: str


@dataclass(frozen=True)
class Notice(Event):
    type: ClassVar[str] = "notice"
    message: str
    level: Literal["info", "warning"] = "info"


@dataclass(frozen=True)
class Error(Event):
    type: ClassVar[str] = "error"
    message: str
    kind: str = "error"


@dataclass(frozen=True)
class TurnEnded(Event):
    type: ClassVar[str] = "turn_ended"
    reason: EndReason
    thread_id: str
    text: str = ""


# Streamed text a front end may drop once the user cancelled the turn (the thread keeps it).
STREAMED_TEXT = (TextDelta, ReasoningDelta)

EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in Event.__subclasses__()}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its wire form (used by RemoteSession)."""
    cls = EVENT_TYPES[data["type"]]
    names = {f.name for f in dataclasses.fields(cls) if f.metadata.get("wire", True)}
    return cls(**{k: v for k, v in data.items() if k in names})
