"""create_cli_agent(): the deepagents graph auger runs.

The middleware order lives in ONE place: this list (`Stack.main()` builds it; docs/ARCHITECTURE.md
points here). Read it top to bottom as the order hooks run before a model call (wrap_model_call:
outermost first):

0. AugerSummarizationMiddleware — named "SummarizationMiddleware": takes the SDK's slot in its
                                 core stack; compacts with the model in use now (`/model`).
0a. TurnLimitMiddleware        — cap model calls per user prompt (`max_turns`); end the turn
                                 after a plan nobody accepted: answers in the model's place
                                 and ends the run (`jump_to`), the outermost of auger's wrappers
                                 around the call (no graph step of its own).
0b. ResumeStateMiddleware      — keep `_context_tokens` and `_model_spec` in checkpointed state,
                                 as an update riding on the model call's result (no graph step of
                                 its own); outside 1, so it sees the reply tagged with its spec.
1. ConfigurableModelMiddleware — pick the model (and temperature, max_tokens, reasoning_effort)
                                 for this call from the run context (`/model`); refuse a reply
                                 that did not finish (`auger.core.models.replies.complete_reply`);
                                 tag the reply with the effective `provider:model`.
2. ProviderHistoryMiddleware   — after a cross-provider switch, send the history without the
                                 previous provider's reasoning blocks / cache fields.
2b. WireContentMiddleware      — send only what any provider takes: valid Unicode, tool results
                                 of text and images (links, audio, blobs as a line of text).
2c. ImageInputsMiddleware      — a model that does not take images (`auger.core.models.images`)
                                 is sent each image as one line of text naming it (before
                                 deepagents' own UnsupportedContentMiddleware, whose notice
                                 speaks of read_file).
4. LocalContextMiddleware      — project facts (git, kinds, test command, layout) as a note in
                                 front of the first user message (never in the system prompt, so
                                 it stays cacheable); detected through the backend, cached in
                                 state, refreshed after a summarization.
6. TodoListMiddleware          — `write_todos` (deepagents 0.7 does not add it by default); its
                                 check of parallel calls rides on the model call
                                 (`middleware/prompt/todos.py`), no graph step of its own.
6b. CompactPromptMiddleware    — a model with a window ≤ 16k tokens gets the compact profile:
                                 short system prompt, one-line tool descriptions, same tools
                                 (`auger.core.agent.prompt_compact`).
6b'. SituationMiddleware       — the model this call goes to, today's date, OS, shell, approval
                                 mode, headless or not, sandbox; the per-model suffix of the
                                 call's model (`/model` updates both), after the stable prompt.
6c. ApprovalGateMiddleware     — human-in-the-loop: `interrupt_on` on every tool; `when` asks only
                                 on an "ask" verdict of `auger.core.middleware.tools.permissions.tool_verdict`
                                 (deny > plan mode > ask rules/protected paths > allow rules >
                                 approval mode); asks as the call starts, the outermost tool
                                 wrapper, in HITL's terms, instead of deepagents' HITL node after
                                 every model call (`middleware/tools/approval_gate.py`).
7. HooksMiddleware             — PreToolUse/PostToolUse(/Failure), SubagentStart/Stop hooks
                                 (`auger.core.hooks.runner`); may block a call or change its input;
                                 PreModel/PostModel around the model call (`middleware/model/model_hooks.py`)
                                 and the reply's PreToolUse hooks as it arrives, before HITL asks
                                 (`middleware/tools/pre_tool.py`).
8. PermissionMiddleware        — refuses calls a `[permissions] deny` rule matches (on the final
                                 input, after hooks), telling the model and the user which rule.
9. RedactionMiddleware         — secret env values out of tool results and model replies before
                                 they enter state (and the thread DB).
9b. ToolResultsMiddleware      — a tool that raises is an error result, not the end of the turn;
                                 a non-zero exit is status "error"; results are valid Unicode.
9c. ClientToolsMiddleware      — with `TurnOptions.files` / `.terminal` (an editor over ACP), read_file /
                                 write_file / edit_file on project paths and execute run in the front end.
10. McpToolsMiddleware         — (when MCP servers are configured) offers the tools of the servers
                                 connected now and runs their calls, asking approval if needed.
10b. TurnToolsMiddleware       — a turn invoking a skill/command with `allowed-tools` is offered
                                 and may run only those tools.
10b'. PlanModeMiddleware      — in plan mode: read-only tools (MCP ones too) and `present_plan`
                                 only, the plan section in the system prompt; ends the turn after a
                                 plan nobody accepted (the check runs in 0a's:
                                 `plan_left_open`; `auger.core.safety.plan_mode`).
10c. FolderMemoryMiddleware    — a subfolder's AGENTS.md / CLAUDE.md joins a file tool's result
                                 the first time the agent works in that folder.
11. RewindMiddleware           — snapshots the project before the turn's first file-changing
                                 tool call (`auger.core.rewind`); inside the other tool wrappers,
                                 so refused or rejected calls cost nothing.
11b. BackgroundMiddleware      — `execute(background=true)`, `execute_output`, `execute_stop`;
                                 innermost: such a command passed all of the above first. 11c.
                                 ContextMeter keeps the last request for `/context`.
12. AugerSkillsMiddleware      — named "SkillsMiddleware": takes the SDK's skills slot in the tail.
13. AugerMemoryMiddleware      — named "MemoryMiddleware": takes the SDK's memory slot in the tail.
14. RememberedUnsupportedContent — named "UnsupportedContentMiddleware": the SDK's last slot, the
                                 same check without converting plain-text messages on each call,
                                 each message's verdict kept (`auger.core.middleware.history_scans`,
                                 which also takes the slots of the SDK's dangling-tool-call patch
                                 and its filesystem middleware, whose history passes it shortens).

deepagents puts its core stack before these (filesystem tools, `task` subagents, summarization,
dangling-tool-call patching) and its tail after 1-11: skills (12), prompt caching, memory (13),
unsupported content. Subagents get what `Stack.subagent` lists (see `_subagents()`).

Each run of consecutive auger middlewares without graph-node hooks (0a-11c; 0a-10b' in a subagent)
runs as ONE wrapper layer (`auger.core.middleware.layers.layered`): the same hooks in the same order,
one langsmith `traceable`. An agent step is then two graph steps: the model and the tools.

The backend is the project backend wrapped with the mounts of `auger.core.backends.mounts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auger.core.agent.context import AugerContext
from auger.core.agent.prompt import SYSTEM_PROMPT
from auger.core.models.images import takes_images
from auger.core.models.providers import build_chat_model
from auger.core.models.specs import configured_window, parse_spec
from auger.errors import ModelError

if TYPE_CHECKING:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool
    from langgraph.types import Checkpointer

    from auger.settings import Settings


def model_factory(settings: Settings) -> Any:
    """(spec, params) -> chat model, resolving providers from settings: the default model, a
    `/model` switch, a subagent's own model and the summariser all come from here, with the
    configured `request_timeout` and context window."""

    def build(spec: str, params: dict[str, Any]) -> BaseChatModel:
        resolved = parse_spec(spec, settings.providers)
        model = build_chat_model(resolved, request_timeout=settings.get("request_timeout"), **params)
        profile = dict(model.profile or {})
        # a `max_input_tokens` — the configured window, else the profile's own, else what auger knows
        # of the model — so deepagents' summarization compacts at 85% of it (with none it waits
        # until 170k tokens, past many local models' limit)
        configured = configured_window(settings.get("context_window"), resolved)
        if configured is not None or not isinstance(profile.get("max_input_tokens"), int):
            profile["max_input_tokens"] = configured or resolved.context_window
        # whether it takes images (`auger.core.models.images`), stamped so every part that holds
        # the model (the image middleware, a subagent's stack) reads one answer
        profile["image_inputs"] = takes_images(settings, resolved.spec, profile)
        model.profile = profile  # type: ignore[assignment]
        return model

    return build


@dataclass(frozen=True)
class Stack:
    """auger's middleware by role: `main()` is THE model-call order (the list in the docstring);
    `subagent(model)` is what a subagent gets around its model, in the same order."""

    summarization: Any  # 0
    model: Any  # 1: ConfigurableModelMiddleware, following /model
    history: Any  # 2
    wire: Any  # 2b
    images: Any  # 2c
    resume: Any  # 0b
    local_context: Any  # 4
    turn_limit: Any  # 0a
    todos: Any  # 6
    compact: Any  # 6b: CompactPromptMiddleware (0 sizes a call with it)
    situation: Any  # 6b': SituationMiddleware
    gate: Any  # 6c: ApprovalGateMiddleware (the approval prompts, deepagents' `interrupt_on`)
    safety: tuple[Any, ...]  # 7-9c
    plan: Any  # 10b': subagents' PlanModeMiddleware (no present_plan); the main agent's is its own
    skills: Any  # 12
    memory: Any  # 13
    notes: Any  # 13 for a subagent without edit_file: the memory without how to save to it
    files: Any  # deepagents' filesystem slot: auger's grep and edit_file, for subagents too

    def main(self) -> list[AgentMiddleware[Any, Any, Any]]:
        head = [self.summarization, self.turn_limit, self.resume, self.model, self.history, self.wire]
        head += [self.images, self.local_context]
        return [*head, self.todos, self.compact, self.situation, self.gate, *self.safety]

    def subagent(
        self, model: Any, edits: bool = True, project: bool = True, pinned: str | None = None
    ) -> list[AgentMiddleware[Any, Any, Any]]:
        """`project`: the project's facts and AGENTS.md chain, as the main agent has them (an agent
        file may say `project_context: false`); `pinned`: the model its file names."""
        from auger.core.middleware.layers import layered
        from auger.core.middleware.prompt.tool_texts import ToolTextsMiddleware

        head = [self.turn_limit, model, self.history, self.wire, self.images]  # the turn limit outside it
        head += [*([self.local_context] if project else []), self.situation.for_subagent(pinned)]
        tail = [*([self.memory if edits else self.notes] if project else []), self.files]
        return [*layered([*head, self.gate, *self.safety, self.plan, ToolTextsMiddleware()]), *tail]


def startup_suffix(model: BaseChatModel) -> str:
    """The per-model prompt suffix `create_deep_agent` appends for the model it is given (6b'
    replaces it with the suffix of each call's model)."""
    from auger.core.middleware.prompt.situation import profile_suffix

    return profile_suffix(model, None)


def _stack(settings: Settings, backend: Any, model: BaseChatModel, interrupt_on: dict[str, Any]) -> Stack:
    from auger.core.middleware.history_scans import sdk_filesystem
    from auger.core.middleware.model.configurable_model import ConfigurableModelMiddleware
    from auger.core.middleware.model.image_inputs import ImageInputsMiddleware
    from auger.core.middleware.model.provider_history import ProviderHistoryMiddleware
    from auger.core.middleware.model.resume_state import ResumeStateMiddleware
    from auger.core.middleware.model.summarization import AugerSummarizationMiddleware
    from auger.core.middleware.model.turn_limit import TurnLimitMiddleware
    from auger.core.middleware.model.wire_content import WireContentMiddleware
    from auger.core.middleware.prompt.compact_prompt import CompactPromptMiddleware
    from auger.core.middleware.prompt.local_context import LocalContextMiddleware
    from auger.core.middleware.prompt.memory import READ_ONLY_MEMORY_PROMPT, AugerMemoryMiddleware
    from auger.core.middleware.prompt.plan_mode import PlanModeMiddleware
    from auger.core.middleware.prompt.situation import SituationMiddleware
    from auger.core.middleware.prompt.skills import AugerSkillsMiddleware
    from auger.core.middleware.prompt.todos import TodoListInCall
    from auger.core.middleware.tools.approval_gate import ApprovalGateMiddleware
    from auger.core.middleware.tools.client_tools import ClientToolsMiddleware
    from auger.core.middleware.tools.hooks import HooksMiddleware
    from auger.core.middleware.tools.permissions import PermissionMiddleware
    from auger.core.middleware.tools.redaction import RedactionMiddleware
    from auger.core.middleware.tools.tool_results import ToolResultsMiddleware

    switch = ConfigurableModelMiddleware(model_factory(settings), settings.model)
    compact = CompactPromptMiddleware()
    return Stack(
        summarization=AugerSummarizationMiddleware(model, backend, switch, compact),  # the SDK's slot
        model=switch,
        history=ProviderHistoryMiddleware(),
        wire=WireContentMiddleware(),
        images=ImageInputsMiddleware(),
        resume=ResumeStateMiddleware(),
        local_context=LocalContextMiddleware(backend, str(settings.project_root)),
        turn_limit=TurnLimitMiddleware(),
        todos=TodoListInCall(),
        compact=compact,
        situation=SituationMiddleware(
            settings.model, startup_suffix(model), bool(settings.get("sandbox.enabled"))
        ),
        gate=ApprovalGateMiddleware(interrupt_on),  # outermost of the tool wrappers: asks first
        # tool-call safety, outermost first: hooks (may change or block the input), permission rules
        # (deny; on the final input), redaction (secrets out of results and replies),
        # truthful results; innermost, the front end's files/terminal when it offers them (ACP)
        safety=(
            HooksMiddleware(),
            PermissionMiddleware(),
            RedactionMiddleware(),
            ToolResultsMiddleware(),
            ClientToolsMiddleware(),
        ),
        plan=PlanModeMiddleware(offer_tool=False),
        skills=AugerSkillsMiddleware(backend, settings),  # they replace the SDK's own by name,
        memory=AugerMemoryMiddleware(backend, settings),  # in the SDK's tail slots
        notes=AugerMemoryMiddleware(backend, settings, prompt=READ_ONLY_MEMORY_PROMPT),
        files=sdk_filesystem(model, backend),
    )


def _subagents(
    settings: Settings, stack: Stack, model: BaseChatModel, backend: Any, tools: Sequence[Any]
) -> list[dict[str, Any]]:
    """The general-purpose subagent (following `/model`, compacting like the main agent) and the
    file/config-defined ones (their own model if the file names one; summaries after PreCompact)."""
    from deepagents.middleware.subagents import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT

    from auger.core.catalog.subagents import discover_subagents, subagent_specs
    from auger.core.middleware.model.configurable_model import ConfigurableModelMiddleware
    from auger.core.middleware.model.pre_compact import summarization

    compaction = summarization(model, backend)  # deepagents' default for them, with PreCompact

    def middleware(spec: str | None, tools: frozenset[str] | None = None, project: bool = True) -> list[Any]:
        switch = ConfigurableModelMiddleware(model_factory(settings), pinned=spec) if spec else stack.model
        edits = tools is None or "edit_file" in tools
        return [compaction, *stack.subagent(switch, edits=edits, project=project, pinned=spec)]

    general_purpose = {
        "name": "general-purpose",
        "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
        "system_prompt": DEFAULT_SUBAGENT_PROMPT,
        "middleware": [stack.summarization, *stack.subagent(stack.model), stack.skills],
    }
    catalog = discover_subagents(settings)
    defined = subagent_specs(catalog, middleware=middleware, tools=tools)
    if catalog.acp_agents:
        from auger.core.agent.acp_subagent import acp_subagent

        defined += [acp_subagent(agent, settings.project_root) for agent in catalog.acp_agents]
    specs = {spec["name"]: spec for spec in [general_purpose, *defined]}  # a file may redefine it
    return list(specs.values())


def _interrupt_on(tools: Sequence[BaseTool], gated_tools: Sequence[str]) -> dict[str, Any]:
    """HITL config for every tool: `when` asks only on an "ask" verdict (permission rules, then
    the approval mode; see `auger.core.middleware.tools.permissions`)."""
    from auger.core.middleware.tools.permissions import all_tool_names, interrupt_config, mcp_identity

    mcp_names = {t.name: ident for t in tools if (ident := mcp_identity(t))}
    names = all_tool_names([*gated_tools, *(t.name for t in tools)])
    return interrupt_config(names, gated=gated_tools, mcp_names=mcp_names)


def create_cli_agent(
    settings: Settings,
    *,
    checkpointer: Checkpointer | None = None,
    model: BaseChatModel | None = None,
    tools: Sequence[BaseTool] = (),
    gated_tools: Sequence[str] = (),
    backend: Any = None,
    mcp: Any = None,
    context_schema: type[AugerContext] = AugerContext,
) -> Any:
    """Build the compiled agent graph for `settings`.

    `model` overrides the configured one (tests pass a scripted chat model); `tools` are extra
    tools; `gated_tools` are extra tool names that need approval like the shell does; `mcp` is an
    `McpManager` whose tools join each model call as its servers connect; `context_schema` an
    `AugerContext` subclass (a LangGraph Server's runs: `auger.hosted.graph.HostedContext`).
    """
    from deepagents import create_deep_agent
    from langchain_core.messages import SystemMessage

    from auger.core.agent.tracing import inline_when_untraced, plain_hooks_when_untraced
    from auger.core.backends.factory import make_backend
    from auger.core.backends.mounts import with_mounts
    from auger.core.catalog.memory import memory_sources
    from auger.core.middleware import history_passes
    from auger.core.middleware.history_scans import RememberedPatchToolCalls, RememberedUnsupportedContent
    from auger.core.middleware.layers import layered
    from auger.core.middleware.tools.rewind import RewindMiddleware
    from auger.core.threads.messages_reducer import AgentState
    from auger.core.web.tools import web_tools

    inline_when_untraced()
    plain_hooks_when_untraced()  # before the agents are built: langchain wraps hooks then
    history_passes.install()  # langchain's per-call passes over the history, each message once
    default_spec = settings.model
    if model is None:
        if not default_spec:
            raise ModelError(
                "No model configured.",
                hint="Use --model PROVIDER:MODEL or `auger config set model PROVIDER:MODEL`.",
            )
        model = model_factory(settings)(default_spec, {})
    backend = with_mounts(backend if backend is not None else make_backend(settings), settings)
    tools = [*tools, *web_tools(settings)]  # fetch_url, and web_search when an engine is set
    stack = _stack(settings, backend, model, _interrupt_on(tools, gated_tools))
    middleware = stack.main()
    subagents = _subagents(settings, stack, model, backend, tools)
    if mcp is not None:
        from auger.core.middleware.tools.mcp_tools import McpToolsMiddleware

        middleware.append(McpToolsMiddleware(mcp))
    from auger.core.middleware.model.context_meter import ContextMeter
    from auger.core.middleware.prompt.plan_mode import PlanModeMiddleware
    from auger.core.middleware.tools.background import BackgroundMiddleware
    from auger.core.middleware.tools.folder_memory import FolderMemoryMiddleware
    from auger.core.middleware.tools.turn_tools import TurnToolsMiddleware

    middleware += [  # inside 10: they see (and limit, judge) MCP tools too
        TurnToolsMiddleware(),
        PlanModeMiddleware(),  # with present_plan
        FolderMemoryMiddleware(settings),
        RewindMiddleware(),
        BackgroundMiddleware(getattr(backend, "default", backend)),
        ContextMeter((stack.skills, stack.memory)),
    ]
    from auger.core.agent.thread_tool import get_current_thread_id

    return create_deep_agent(
        model=model,
        tools=[*tools, get_current_thread_id],
        system_prompt=SystemMessage(
            content_blocks=[{"type": "text", "text": SYSTEM_PROMPT}]
        ),  # suffix: a block
        middleware=layered(
            [
                *middleware,
                stack.skills,
                stack.memory,
                RememberedUnsupportedContent(),
                RememberedPatchToolCalls(),
                stack.files,
            ]
        ),
        subagents=subagents,  # type: ignore[arg-type]
        memory=memory_sources(settings),
        backend=backend,
        interrupt_on=None,  # asked in the tool call (6c) for the main agent and its subagents
        context_schema=context_schema,
        state_schema=AgentState,  # messages reduced by the new ones only
        checkpointer=checkpointer,
    )


def agent_tool_names(graph: Any, manager: Any = None, mode: str = "manual") -> list[str]:
    """The tools the model is offered now in `mode`: the graph's own, then the connected MCP
    servers', as PlanModeMiddleware narrows them (`present_plan` only in plan mode, which offers
    the read-only tools only)."""
    from auger.core.middleware.prompt.plan_mode import offered

    node = getattr(graph, "nodes", {}).get("tools")
    tools = dict(getattr(getattr(node, "bound", None), "tools_by_name", None) or {})
    if manager is not None:
        tools.update({tool.name: tool for tool in manager.tools() if tool.name not in tools})
    return [tool.name for tool in offered(list(tools.values()), mode)]
