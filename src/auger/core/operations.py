"""The operations a front end can ask of the agent, declared once.

Each `Operation` is a name, an HTTP method and path, a request and a result dataclass, a summary,
and where it runs: `scope` says which Session of a server handles it (`"any"`: none in particular,
`"own"`: the thread's own Session, which must exist; `"new"`: a Session on a new thread) and
`idle` that the thread must not be running a turn (409 otherwise). From this table come:

* the local implementation: `Session.call(op, request)` runs the function registered for `op`
  (`auger.core.session.calls`);
* the server's routes (`auger.server.routes`: parse and check the request from the path, query
  and JSON body, call the Session, serialise the result) and its OpenAPI document;
* the remote client (`auger.remote.client.RemoteSession.call`: one generic HTTP call).

Adding an operation is one entry here plus its function in `auger.core.session.calls`. The
streaming run protocol (`POST /threads/{id}/runs`, cancel), the Vercel chat stream and the
server's per-thread default mode are not operations; `auger.server.app` writes them by hand.

Requests and results are plain data (str, int, bool, None, lists, dicts, nested dataclasses,
IR events and ThreadInfo): `to_wire` / `from_wire` turn them into JSON and back. Standard
library only (the remote client imports this).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from auger.core import events as ev
from auger.core.agent.context import MODES
from auger.core.doctor import Check as Diagnosis  # one row of /doctor, on the wire as it is
from auger.core.rewind.thread_rewind import Rewound, TurnChanges
from auger.core.threads.store import LiveThread

THREAD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
Req = TypeVar("Req")
Res = TypeVar("Res")
Scope = Literal["any", "own", "new"]
Persist = Literal["project", "user"]


@dataclass(frozen=True)
class Operation(Generic[Req, Res]):
    name: str
    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str
    request: type[Req]
    result: type[Res]
    summary: str
    scope: Scope = "any"
    idle: bool = False  # 409 while the thread runs a turn
    status: int = 200  # 201 for what creates a thread
    ends_thread: bool = False  # the server forgets the thread's Session afterwards

    @property
    def path_params(self) -> list[str]:
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]


def check_thread_id(value: str) -> str:
    if not THREAD_ID.match(value):
        raise ValueError(f"Invalid thread id {value[:80]!r}: use 1-128 letters, digits, '_', '-', '.' or ':'")
    return value


# -- requests -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class NoArgs:
    pass


@dataclass(frozen=True)
class ThreadRef:
    thread_id: str


@dataclass(frozen=True)
class ListThreads:
    limit: int = 100
    all: bool = False  # every project (default: the agent's project)
    search: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= 10_000:
            raise ValueError(f"'limit' must be a whole number from 1 to 10000, not {self.limit}")


@dataclass(frozen=True)
class NewThread:
    thread_id: str | None = None
    model: str | None = None
    mode: str | None = None  # the server's default mode for the thread's runs

    def __post_init__(self) -> None:
        if self.thread_id is not None:
            check_thread_id(self.thread_id)
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"Unknown mode {self.mode!r}; use one of: {', '.join(MODES)}")


@dataclass(frozen=True)
class RenameThread:
    thread_id: str
    title: str


@dataclass(frozen=True)
class ForkThread:
    thread_id: str
    at: int | None = None  # user turn to fork after (None: all of it)

    def __post_init__(self) -> None:
        if self.at is not None and self.at < 1:
            raise ValueError(f"'at' must be a user turn number from 1, not {self.at}")


@dataclass(frozen=True)
class Rewind:
    """Undo user turns `to`.. : their file changes (`files`), the conversation, or both."""

    thread_id: str
    to: int
    files: bool = True
    conversation: bool = True
    force: bool = False  # also overwrite files changed by hand since
    dry_run: bool = False

    def __post_init__(self) -> None:
        if self.to < 1:
            raise ValueError(f"'to' must be a user turn number from 1, not {self.to}")
        if not (self.files or self.conversation):
            raise ValueError("'files' and 'conversation' are both false: nothing to rewind")


@dataclass(frozen=True)
class ThreadDiff:
    thread_id: str
    turn: int | None = None  # one user turn (None: the whole thread)

    def __post_init__(self) -> None:
        if self.turn is not None and self.turn < 1:
            raise ValueError(f"'turn' must be a user turn number from 1, not {self.turn}")


@dataclass(frozen=True)
class SetModel:
    thread_id: str
    model: str
    params: dict[str, Any] | None = None  # temperature, max_tokens, reasoning_effort


@dataclass(frozen=True)
class Compact:
    thread_id: str
    instructions: str | None = None


@dataclass(frozen=True)
class Approval:
    thread_id: str
    request_id: str
    decision: ev.ApprovalKind
    message: str | None = None
    rule: str | None = None
    persist: Persist | None = None
    mode: str | None = None  # approve and go on in this mode (a plan accepted)

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"Unknown mode {self.mode!r}; use one of: {', '.join(MODES)}")


@dataclass(frozen=True)
class InputReply:
    """The answer to an input_requested event; `content` (accept) must fit the event's schema."""

    thread_id: str
    request_id: str
    action: ev.InputAction
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class Transcript:
    thread_id: str
    format: Literal["markdown", "text"] = "markdown"


@dataclass(frozen=True)
class Shell:
    command: str

    def __post_init__(self) -> None:
        if not self.command.strip():
            raise ValueError("'command' is empty")


@dataclass(frozen=True)
class McpServer:
    name: str


@dataclass(frozen=True)
class JobRef:
    thread_id: str
    job: str  # bg1, bg2, ...


@dataclass(frozen=True)
class ChangeRule:
    thread_id: str
    action: Literal["add", "remove"]
    kind: Literal["allow", "ask", "deny"]
    rule: str
    scope: Persist = "project"  # where an added rule is written


# -- results ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RuleInForce:
    kind: str
    rule: str
    source: str  # the file it is in, "this session" or "this thread (always allow)"


@dataclass(frozen=True)
class RuleList:
    rules: list[RuleInForce]


@dataclass(frozen=True)
class ModelCost:
    scope: str  # "thread" | "turn" (the last one)
    model: str  # provider:model
    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    price: float | None  # USD; None: the price is not known


@dataclass(frozen=True)
class Costs:
    models: list[ModelCost]


@dataclass(frozen=True)
class ContextPart:
    name: str
    chars: int
    tokens: int  # estimated: the last call's prompt tokens shared out by characters, else chars / 4


@dataclass(frozen=True)
class ContextUse:
    parts: list[ContextPart]
    window: int | None  # the model's context window, when known
    measured: bool  # False: no model call in this session yet (only the saved messages counted)


@dataclass(frozen=True)
class Diagnoses:
    checks: list[Diagnosis]


@dataclass(frozen=True)
class JobInfo:
    id: str
    command: str
    status: str  # "running for 12 s" | "exited with code 0" | "stopped"
    running: bool


@dataclass(frozen=True)
class JobList:
    jobs: list[JobInfo]


@dataclass(frozen=True)
class AgentInfo:
    version: str
    protocol: int
    mode: str
    model: str | None
    project: str | None = None  # the agent's project folder, on its machine
    sandbox: bool | None = None  # shell and file tools run in the sandbox (None: not told)
    trust: str | None = None  # whether the project is trusted (`auger.trust`), one line


@dataclass(frozen=True)
class ThreadList:
    threads: list[LiveThread]


@dataclass(frozen=True)
class Deleted:
    deleted: bool = True


@dataclass(frozen=True)
class Done:
    ok: bool = True


@dataclass(frozen=True)
class History:
    events: list[ev.Event]  # the saved turns as the live turn emits them


@dataclass(frozen=True)
class Messages:
    messages: list[dict[str, Any]]  # LangChain `messages_to_dict`


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Turns:
    turns: list[TurnChanges]  # oldest first


@dataclass(frozen=True)
class Compacted:
    """What `/compact` did: `summarized` messages now stand behind one summary message."""

    compacted: bool
    summarized: int = 0
    summary: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    notices: list[ev.Notice] = field(default_factory=list)  # from PreCompact hooks


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    source: str
    args_hint: str = "[args]"


@dataclass(frozen=True)
class CommandInfo:
    """A custom slash command (`auger.core.catalog.commands`): `/name args`, sent as typed."""

    name: str  # `review`, or `git:commit` for a file in a subfolder
    description: str
    source: str  # user | project
    args_hint: str = ""


@dataclass(frozen=True)
class SubagentInfo:
    name: str
    description: str
    source: str
    model: str | None = None  # None: the main agent's


@dataclass(frozen=True)
class MemoryFileInfo:
    scope: str  # user | project | project-local
    path: str
    exists: bool


@dataclass(frozen=True)
class McpServerInfo:
    name: str
    status: str  # connected | connecting | failed | untrusted | ...
    tools: list[str]
    error: str | None = None
    prompts: list[str] = field(default_factory=list)  # usages: "/mcp__server__prompt arg [optional]"


@dataclass(frozen=True)
class Catalogue:
    """What `/help`, `/skills`, `/agents`, `/memory`, `/tools` and `/mcp` show."""

    skills: list[SkillInfo]
    subagents: list[SubagentInfo]
    memory: list[MemoryFileInfo]
    tools: list[str]  # what the model is offered outside plan mode
    mcp: list[McpServerInfo] | None  # None: MCP is not running
    commands: list[CommandInfo] = field(default_factory=list)  # custom commands (none of a skill's name)
    plan_tools: list[str] = field(default_factory=list)  # what it is offered in plan mode


@dataclass(frozen=True)
class FileList:
    files: list[str]  # relative to the agent's project folder


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    source: str  # config | credentials (a built-in provider whose key is set) | current


@dataclass(frozen=True)
class ModelList:
    models: list[ModelChoice]


@dataclass(frozen=True)
class ModelCapabilities:
    """What a model can do, from LangChain's model profiles (models.dev); None: not known."""

    spec: str
    context_window: int
    tools: bool | None = None
    images: bool | None = None
    reasoning: bool | None = None


@dataclass(frozen=True)
class AgentCapabilities:
    """One agent the user can reach: the main agent, a subagent, or an ACP agent (`kind`)."""

    name: str
    kind: str  # main | subagent | acp
    model: str | None  # None: the main agent's (or the ACP agent's own)
    tools: list[str] | None  # None: the main agent's tools (or unknown, for an ACP agent)


@dataclass(frozen=True)
class Capabilities:
    agents: list[AgentCapabilities]
    models: list[ModelCapabilities]  # the current model first, then the others /model offers


@dataclass(frozen=True)
class ShellResult:
    command: str
    output: str
    exit_code: int
    truncated: bool = False

    def as_context(self) -> str:
        """How the run is given to the agent with the next prompt."""
        note = " (output truncated)" if self.truncated else ""
        return (
            f"I ran `{self.command}` in the shell (exit code {self.exit_code}){note}:\n"
            f"```\n{self.output.rstrip()}\n```"
        )


# -- the table ----------------------------------------------------------------------------------
T = "/threads/{thread_id}"
Op = Operation
AGENT_INFO = Op(
    "agent_info", "GET", "/version", NoArgs, AgentInfo, "Server version, protocol, default model and mode"
)
CATALOGUE = Op(
    "catalogue",
    "GET",
    "/catalogue",
    NoArgs,
    Catalogue,
    "Skills, custom commands, subagents, memory files, tools, MCP servers",
)
MODELS = Op(
    "models",
    "GET",
    "/models",
    NoArgs,
    ModelList,
    "The models /model offers (config and credentials of the server)",
)
CAPABILITIES = Op(
    "capabilities",
    "GET",
    "/capabilities",
    NoArgs,
    Capabilities,
    "Capability flags per agent (tools) and per model (tools, images, reasoning, context window)",
)
RUN_SHELL = Op(
    "run_shell",
    "POST",
    "/shell",
    Shell,
    ShellResult,
    "Run a user's shell command in the agent's project (backend)",
)
PROJECT_FILES = Op(
    "project_files",
    "GET",
    "/files",
    NoArgs,
    FileList,
    "The agent's project files (git ls-files, or a walk), for @path completion",
)
MCP_TRUST = Op(
    "mcp_trust", "POST", "/mcp/trust", NoArgs, Text, "Trust this project's MCP servers and start them"
)
MCP_RESTART = Op("mcp_restart", "POST", "/mcp/{name}/restart", McpServer, Text, "Restart one MCP server")
LIST_THREADS = Op(
    "list_threads", "GET", "/threads", ListThreads, ThreadList, "Threads, newest first (full-text search)"
)
NEW_THREAD = Op(
    "new_thread", "POST", "/threads", NewThread, LiveThread, "Create a thread", scope="new", status=201
)
GET_THREAD = Op(
    "get_thread", "GET", T, ThreadRef, LiveThread, "One thread (an id or a unique prefix)", scope="own"
)
RENAME_THREAD = Op("rename_thread", "PATCH", T, RenameThread, LiveThread, "Rename a thread")
DELETE_THREAD = Op(
    "delete_thread", "DELETE", T, ThreadRef, Deleted, "Delete a thread and its checkpoints", ends_thread=True
)
FORK_THREAD = Op(
    "fork_thread", "POST", f"{T}/fork", ForkThread, LiveThread, "Copy a thread into a new one", status=201
)
REWIND = Op(
    "rewind",
    "POST",
    f"{T}/rewind",
    Rewind,
    Rewound,
    "Undo the agent's file changes and/or the conversation from user turn N on",
    scope="own",
    idle=True,
)
DIFF = Op("diff", "GET", f"{T}/diff", ThreadDiff, Text, "The agent's file changes as a unified diff")
TURNS = Op(
    "turns",
    "GET",
    f"{T}/turns",
    ThreadRef,
    Turns,
    "The user turns: each prompt and the files it changed",
    scope="own",  # a thread with no turn yet is the Session's, not the store's
)
HISTORY = Op("history", "GET", f"{T}/history", ThreadRef, History, "The saved conversation as IR events")
MESSAGES = Op(
    "messages", "GET", f"{T}/messages", ThreadRef, Messages, "The thread's messages (LangChain dicts)"
)
TRANSCRIPT = Op(
    "transcript", "GET", f"{T}/transcript", Transcript, Text, "The conversation as Markdown or text"
)
SET_MODEL = Op(
    "set_model",
    "POST",
    f"{T}/model",
    SetModel,
    LiveThread,
    "Switch the thread's model (next turn)",
    scope="own",
)
COMPACT = Op(
    "compact",
    "POST",
    f"{T}/compact",
    Compact,
    Compacted,
    "Summarise the thread so far",
    scope="own",
    idle=True,
)
RESOLVE_APPROVAL = Op(
    "resolve_approval",
    "POST",
    f"{T}/approvals",
    Approval,
    Done,
    "Answer an approval_requested event",
    scope="own",
)
RESOLVE_INPUT = Op(
    "resolve_input",
    "POST",
    f"{T}/inputs",
    InputReply,
    Done,
    "Answer an input_requested event (an MCP server's form): accept with content, decline or cancel",
    scope="own",
)
JOBS = Op("jobs", "GET", f"{T}/jobs", ThreadRef, JobList, "The thread's background commands", scope="own")
STOP_JOB = Op(
    "stop_job", "POST", f"{T}/jobs/{{job}}/stop", JobRef, Text, "Stop a background command", scope="own"
)
PERMISSIONS = Op(
    "permissions",
    "GET",
    f"{T}/permissions",
    ThreadRef,
    RuleList,
    "The permission rules in force",
    scope="own",
)
CHANGE_RULE = Op(
    "change_rule",
    "POST",
    f"{T}/permissions",
    ChangeRule,
    Text,
    "Add a permission rule to a config file, or remove one (applies at once)",
    scope="own",
)
COST = Op(
    "cost",
    "GET",
    f"{T}/cost",
    ThreadRef,
    Costs,
    "Tokens and price per model: the thread's and its last turn's",
)
DOCTOR = Op(
    "doctor", "GET", "/doctor", NoArgs, Diagnoses, "Config, model and key, trust, MCP, sandbox checks"
)
CONTEXT = Op(
    "context",
    "GET",
    f"{T}/context",
    ThreadRef,
    ContextUse,
    "What fills the context window, by part",
    scope="own",
)
# every operation declared above, in their order (the routes and the OpenAPI document follow it)
OPERATIONS: tuple[Operation[Any, Any], ...] = tuple(
    v for v in dict(globals()).values() if isinstance(v, Operation)
)


# -- wire form ----------------------------------------------------------------------------------
class WireError(ValueError):
    """A value that does not fit its field; the message names the field."""


def to_wire(value: Any) -> Any:
    """JSON-ready data for a request, result or any value inside one."""
    if isinstance(value, ev.Event | LiveThread):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_wire(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    return value


def from_wire(cls: type[Req], data: Any) -> Req:
    """Rebuild a `cls` dataclass from its wire form; WireError names what does not fit."""
    return typing.cast(Req, _decode(cls, data, "body"))


_EXPECTED = {str: "a string", bool: "true or false", int: "a whole number", float: "a number"}


def _decode(hint: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin is not None:
        return _GENERIC[types.UnionType if origin is typing.Union else origin](hint, data, where)
    if hint is dict:
        return _object(hint, data, where)
    if isinstance(hint, type) and issubclass(hint, ev.Event):
        try:
            return ev.event_from_dict(data)
        except (KeyError, TypeError) as exc:
            raise WireError(f"{where} is not an event: {exc}") from None
    if hint is LiveThread:
        return LiveThread.from_dict(_object(hint, data, where))
    if dataclasses.is_dataclass(hint):
        return _dataclass(hint, data, where)
    return _scalar(hint, data, where)


def _union(hint: Any, data: Any, where: str) -> Any:
    args = typing.get_args(hint)
    if data is None and type(None) in args:
        return None
    inner = [a for a in args if a is not type(None)]
    return _decode(inner[0], data, where) if len(inner) == 1 else data


def _literal(hint: Any, data: Any, where: str) -> Any:
    args = typing.get_args(hint)
    if data not in args:
        raise WireError(f"{where} must be one of {', '.join(map(str, args))}, not {data!r}")
    return data


def _array(hint: Any, data: Any, where: str) -> Any:
    if not isinstance(data, list):
        raise WireError(f"{where} must be an array, not {kind_of(data)}")
    item = (typing.get_args(hint) or (Any,))[0]
    return [_decode(item, value, f"{where}[{i}]") for i, value in enumerate(data)]


def _object(hint: Any, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{where} must be an object, not {kind_of(data)}")
    return dict(data)


_GENERIC = {types.UnionType: _union, Literal: _literal, list: _array, dict: _object}


def _scalar(hint: Any, data: Any, where: str) -> Any:
    if hint not in _EXPECTED:
        return data  # Any
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if not isinstance(data, hint) or (hint is not bool and isinstance(data, bool)):
        raise WireError(f"{where} must be {_EXPECTED[hint]}, not {kind_of(data)}")
    return data


def _dataclass(cls: Any, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{where} must be a JSON object, not {kind_of(data)}")
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in data and data[f.name] is not None:
            values[f.name] = _decode(hints[f.name], data[f.name], f"field {f.name!r}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            if f.name not in data or type(None) not in typing.get_args(hints[f.name]):
                raise WireError(f"missing field {f.name!r}")
            values[f.name] = None
    try:
        return cls(**values)
    except ValueError as exc:
        raise WireError(str(exc)) from None


def kind_of(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value)) or ("a number" if isinstance(value, int | float) else type(value).__name__)
