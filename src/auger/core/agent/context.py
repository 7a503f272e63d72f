"""The per-run context (`context_schema`): what may change between turns of one thread
without rebuilding the graph — the model, its params, the approval mode, per-thread grants."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

MODES = ("manual", "auto-edit", "yolo", "plan")  # plan: auger.core.safety.plan_mode
FILE_EDIT_TOOLS = frozenset({"write_file", "edit_file", "delete"})
GATED_TOOLS = frozenset({*FILE_EDIT_TOOLS, "execute", "task", "fetch_url", "web_search"})  # + the network
Approve = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]  # an action -> {"type": "approve" | "reject"}


@dataclass
class AugerContext:
    model_spec: str | None = None
    model_params: dict[str, Any] = field(default_factory=dict)
    mode: str = "manual"
    always_allow: frozenset[str] = frozenset()
    thread_id: str | None = None
    max_turns: int = 50
    unattended: bool = False  # nobody answers approvals or questions (headless, a policy answers)
    # safety (auger.core.safety.permissions, auger.core.hooks.runner): the session's rule engine and hook
    # runner, and this turn's per-call verdicts (so HITL's `when` answers the same on resume)
    permissions: Any = None
    hooks: Any = None
    verdicts: dict[str, Any] = field(default_factory=dict)
    # this turn's allowed-tools (rule strings) when it invokes a skill or command that lists
    # them (auger.core.middleware.tools.turn_tools); None: every tool
    turn_tools: tuple[str, ...] | None = None
    # call id -> what its PreToolUse hooks said (auger.core.middleware.tools.pre_tool), for this turn
    pre_tool: dict[str, Any] = field(default_factory=dict)
    # call id -> (the arguments as stored, redacted; as the model wrote them): the tool runs the
    # latter (auger.core.middleware.tools.redaction); in memory only, for this turn
    originals: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    # asks auger's approvals about an action {name, args, id, description} that is not a tool
    # call of this graph (an ACP subagent's permission request); returns {"type": "approve" | "reject"}
    approve: Approve | None = None
    # the front end's file access for this turn (auger.core.port.ClientFiles), None: the backend's
    files: Any = None
    terminal: Any = None  # the front end's terminal for `execute` (auger.core.port.ClientTerminal)
    # this turn's auger.core.rewind.recorder.TurnRecorder (RewindMiddleware snapshots before file changes)
    rewind: Any = None
    jobs: Any = None  # the session's background commands (auger.core.backends.jobs.Jobs)
    meter: Any = None  # the session's last request, for /context (middleware/model/context_meter.Meter)
