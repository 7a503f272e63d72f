"""The port: everything a front end (TUI, headless, server, ACP) may use of the agent.

`AgentPort` is subclassed by the in-process `auger.core.session.Session` and by the client of
`auger serve` (`auger.remote.client.RemoteSession`); mypy checks their methods against it. A
front end imports this module, `auger.core.events`, `auger.errors` and `auger.settings` — nothing
else of `auger.core` (tests/core/test_import_graph.py checks the TUI and headless).

* Turns: `send(prompt, options)` runs one turn and yields IR events (ending with `TurnEnded`);
  an MCP server's form comes as `InputRequested`, answered with `resolve_input` (an operation);
  `TurnOptions` carries what the front end decides per turn (approval mode, a policy that
  answers approvals without a human, a turn cap). Approvals come as `ApprovalRequested` events
  with a future (`event.respond(...)`) or through `resolve_approval`; `cancel()` stops the turn.
* Everything else is an operation of `auger.core.operations`: `call(op, request)`, with typed
  shortcuts written once in `AgentPort` (catalogue, models, run_shell, thread operations, history
  as the same events a live turn emits, MCP actions). They run where the agent runs: a remote
  client asks the server, so skills, models, credentials and `!command` are the server's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from auger.core import events as ev
from auger.core import operations as ops
from auger.core.agent.context import MODES
from auger.core.forms import FormField, check_form, form_fields
from auger.core.operations import (
    AgentInfo,
    Catalogue,
    Compacted,
    ContextUse,
    Diagnosis,
    JobInfo,
    ModelChoice,
    ModelCost,
    Operation,
    Rewound,
    RuleInForce,
    ShellResult,
    TurnChanges,
)
from auger.core.safety.plan_mode import PLAN_MODE, PLAN_TOOL
from auger.core.safety.unattended import headless_policy, serve_policy
from auger.core.text import counted
from auger.core.threads.search import snippet_parts
from auger.core.threads.store import LiveThread, ThreadInfo
from auger.errors import ThreadError

if TYPE_CHECKING:
    from auger.core.models.replies.loop_share import KeysFirst
    from auger.settings import Settings

__all__ = [
    "MODES",
    "PLAN_MODE",
    "PLAN_TOOL",  # present_plan: its approval (decided_by "plan") accepts a plan
    "AgentInfo",
    "AgentPort",
    "ApprovalPolicy",
    "Catalogue",
    "ClientFiles",
    "ClientTerminal",
    "CommandResult",
    "Compacted",
    "FormField",
    "LiveThread",
    "ModelChoice",
    "Rewound",
    "SessionFactory",
    "ShellResult",
    "ThreadInfo",
    "TurnChanges",
    "TurnOptions",
    "check_form",  # what is wrong with an InputRequested's content, by field
    "counted",  # "1 turn", "2 turns": the wording front ends share with the core
    "form_fields",  # an InputRequested's schema as the fields of a form
    "headless_policy",
    "serve_policy",
    "snippet_parts",  # the hits of a search result's `ThreadInfo.snippet`, to highlight
]

Req = TypeVar("Req")
Res = TypeVar("Res")
ApprovalPolicy = Callable[[ev.ApprovalRequested, str], ev.ApprovalDecision]  # (request, mode) -> answer


@dataclass(frozen=True)
class PromptImage:
    """An image the user gives with a prompt (an editor's pasted screenshot over ACP): base64
    `data` with its `mime_type`, or a `url`. The turn refuses it when the model takes no images."""

    mime_type: str
    data: str = ""
    url: str = ""


@dataclass(frozen=True)
class TurnOptions:
    """What the front end decides for one turn."""

    mode: str = "manual"  # manual | auto-edit | yolo | plan (the turn may switch: ModeChanged)
    approval: ApprovalPolicy | None = None  # answers every approval (headless); None: ask the front end
    max_turns: int | None = None  # model calls for this prompt (None: the configured max_turns)
    # what the user typed, when the front end expanded it into the prompt (inlined @files, `!`
    # output): the thread keeps it with the turn, and a conversation rewind gives it back
    typed: str | None = None
    files: ClientFiles | None = None  # the project's files through the front end (an editor's buffers)
    terminal: ClientTerminal | None = None  # `execute` in the front end's terminal (an editor's)
    images: tuple[PromptImage, ...] = ()  # given with the prompt (auger serve gets them too)
    forms: bool = True  # the front end shows MCP servers' forms (InputRequested); False: declined
    mentions: bool = False  # inline the project files the prompt names as `@path` (the TUI's)


class ClientFiles(Protocol):
    """A front end that holds the project's files (an editor over ACP: unsaved buffers, reviewed
    writes). With `TurnOptions.files`, read_file / write_file / edit_file on project paths use it
    instead of the disk (`auger.core.middleware.tools.client_tools`); local sessions only."""

    async def read(self, path: str) -> str: ...  # `path`: the absolute host path
    async def write(self, path: str, content: str) -> None: ...


@dataclass(frozen=True)
class CommandResult:
    output: str
    exit_code: int | None  # None: stopped at the timeout
    truncated: bool = False


class ClientTerminal(Protocol):
    """A front end that runs the agent's shell commands (an editor's terminal over ACP), with
    `TurnOptions.terminal`; `call_id` is the `execute` call's (to show the terminal in its row)."""

    async def run(self, command: str, cwd: str, call_id: str, timeout: float | None) -> CommandResult: ...


class AgentPort(Protocol):
    """One conversation with the agent, on one thread at a time. The local Session and the remote
    clients subclass it: the typed shortcuts over `call` below are written once for all of them."""

    thread_id: str
    model_spec: str | None
    context_tokens: int
    project: str | None  # the agent's project folder, on its machine (None: not told)

    @property
    def busy(self) -> bool: ...
    def send(self, prompt: str, options: TurnOptions) -> AsyncIterator[ev.Event]: ...
    def cancel(self) -> None: ...
    async def resolve_approval(self, request_id: str, decision: ev.ApprovalDecision) -> None: ...
    async def open_thread(self, thread_id: str | None) -> None: ...
    async def call(self, op: Operation[Req, Res], request: Req) -> Res: ...
    async def aclose(self) -> None: ...

    def give_way_to(self, keys: KeysFirst | None) -> None:
        """Let a front end's keys go first: while `keys.waiting()`, the agent's work in this
        event loop waits (briefly). A remote session's agent runs elsewhere: nothing to do."""

    async def agent_info(self) -> AgentInfo:
        """Version, default mode and model, project, sandbox and project trust, where the agent runs."""
        return await self.call(ops.AGENT_INFO, ops.NoArgs())

    async def catalogue(self) -> Catalogue:
        return await self.call(ops.CATALOGUE, ops.NoArgs())

    async def models(self) -> list[ModelChoice]:
        return (await self.call(ops.MODELS, ops.NoArgs())).models

    async def set_model(self, spec: str, params: dict[str, Any] | None = None) -> str:
        """Use `spec` from the next turn on (checked, credentials included, where the agent runs);
        `params`, when given, replace the model params. Returns the resolved `provider:model`."""
        thread = await self.call(ops.SET_MODEL, ops.SetModel(self.thread_id, spec, params))
        self.model_spec = thread.model
        return thread.model or spec

    async def run_shell(self, command: str) -> ShellResult:
        return await self.call(ops.RUN_SHELL, ops.Shell(command))

    async def compact(self, instructions: str | None = None) -> Compacted | None:
        """Summarise the thread so far; None when there is nothing to compact yet."""
        done = await self.call(ops.COMPACT, ops.Compact(self.thread_id, instructions))
        if not done.compacted:
            return None
        self.context_tokens = done.tokens_after or 0
        return done

    async def history(self) -> list[ev.Event]:
        return (await self.call(ops.HISTORY, ops.ThreadRef(self.thread_id))).events

    async def transcript(self, fmt: str = "markdown") -> str:
        request = ops.Transcript(self.thread_id, "text" if fmt == "text" else "markdown")
        return (await self.call(ops.TRANSCRIPT, request)).text

    async def thread_info(self) -> LiveThread | None:
        try:
            return await self.call(ops.GET_THREAD, ops.ThreadRef(self.thread_id))
        except ThreadError:
            return None  # not saved yet (no turn) or deleted

    async def list_threads(
        self, *, search: str | None = None, all_projects: bool = False, limit: int = 100
    ) -> list[LiveThread]:
        request = ops.ListThreads(limit=limit, all=all_projects, search=search)
        return (await self.call(ops.LIST_THREADS, request)).threads

    async def rename_thread(self, title: str, thread_id: str | None = None) -> LiveThread:
        return await self.call(ops.RENAME_THREAD, ops.RenameThread(thread_id or self.thread_id, title))

    async def fork_thread(self, thread_id: str | None = None, at: int | None = None) -> str:
        return (await self.call(ops.FORK_THREAD, ops.ForkThread(thread_id or self.thread_id, at))).id

    async def delete_thread(self, thread_id: str) -> None:
        await self.call(ops.DELETE_THREAD, ops.ThreadRef(thread_id))

    async def rewind(
        self,
        to: int,
        *,
        files: bool = True,
        conversation: bool = True,
        force: bool = False,
        dry_run: bool = False,
    ) -> Rewound:
        """Undo this thread's user turns `to`.. (files, conversation or both); `dry_run`: only say
        what it would do (with `force`, the files changed by hand since are those marked `forced`)."""
        request = ops.Rewind(self.thread_id, to, files, conversation, force, dry_run)
        done = await self.call(ops.REWIND, request)
        if conversation and not dry_run and (thread := await self.thread_info()) is not None:
            self.context_tokens = thread.context_tokens or 0  # the cut thread's size
        return done

    async def diff(self, turn: int | None = None) -> str:
        return (await self.call(ops.DIFF, ops.ThreadDiff(self.thread_id, turn))).text

    async def turns(self) -> list[TurnChanges]:
        """This thread's user turns, oldest first: each prompt and the files it changed."""
        return (await self.call(ops.TURNS, ops.ThreadRef(self.thread_id))).turns

    async def resolve_input(self, request_id: str, answer: ev.InputAnswer) -> None:
        """Answer an InputRequested of this thread's turn; UsageError (naming the fields) when
        accepted content does not fit the form's schema: the request stays open for another try."""
        await self.call(
            ops.RESOLVE_INPUT, ops.InputReply(self.thread_id, request_id, answer.action, answer.content)
        )

    async def project_files(self) -> list[str]:
        return (await self.call(ops.PROJECT_FILES, ops.NoArgs())).files

    async def mcp_trust(self) -> str:
        return (await self.call(ops.MCP_TRUST, ops.NoArgs())).text

    async def mcp_restart(self, name: str) -> str:
        return (await self.call(ops.MCP_RESTART, ops.McpServer(name))).text

    async def permissions(self) -> list[RuleInForce]:
        return (await self.call(ops.PERMISSIONS, ops.ThreadRef(self.thread_id))).rules

    async def change_rule(self, action: str, kind: str, rule: str, scope: str = "project") -> str:
        change = ops.ChangeRule(self.thread_id, action, kind, rule, scope)  # type: ignore[arg-type]
        return (await self.call(ops.CHANGE_RULE, change)).text

    async def context_use(self) -> ContextUse:
        return await self.call(ops.CONTEXT, ops.ThreadRef(self.thread_id))

    async def doctor(self) -> list[Diagnosis]:
        return (await self.call(ops.DOCTOR, ops.NoArgs())).checks

    async def cost(self) -> list[ModelCost]:
        return (await self.call(ops.COST, ops.ThreadRef(self.thread_id))).models

    async def jobs(self) -> list[JobInfo]:
        return (await self.call(ops.JOBS, ops.ThreadRef(self.thread_id))).jobs

    async def stop_job(self, job: str) -> str:
        return (await self.call(ops.STOP_JOB, ops.JobRef(self.thread_id, job))).text


SessionFactory = Callable[["Settings", "str | None"], Awaitable[AgentPort]]  # (settings, thread_id)
