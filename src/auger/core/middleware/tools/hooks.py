"""HooksMiddleware: PreToolUse / PostToolUse / PostToolUseFailure (and SubagentStart /
SubagentStop around `task`) hooks on every tool call, PreModel / PostModel around every model
call (`auger.core.middleware.model.model_hooks`). The runner comes from the run context
(`AugerContext.hooks`, see `auger.core.hooks.runner`); session-level events are run by the Session.

Hooks get a file tool's path as the host file it reaches (`tool_input.file_path` / `.path`, as
Claude Code's hooks do; resolved by `auger.core.safety.host_paths`, like permissions and protected paths),
and a host path in `updatedInput` is mapped back to the agent path.
PreToolUse hooks run when the model's reply arrives, before any approval prompt
(`auger.core.middleware.tools.pre_tool`): a block or `permissionDecision: "deny"` means the tool is not
run and the model reads the hook's reason, "allow" / "ask" change whether the user is asked, and
an `updatedInput` replaces those arguments in the reply (so the approval shows them; deny rules
are checked on them); a call that reaches the tool without a model reply first (none here)
runs them then. PostToolUse `updatedToolOutput` / `updatedMCPToolOutput`
replaces the result the model reads (and the thread keeps), `additionalContext` (or a block
reason) is appended to it. Hook problems become Notices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest

from auger.core.agent.context import AugerContext
from auger.core.hooks.runner import HookResult, HookRunner
from auger.core.mcp.names import legacy_names
from auger.core.middleware.model import model_hooks
from auger.core.middleware.tools import pre_tool
from auger.core.middleware.tools.permissions import error_message, mcp_identity, notify
from auger.core.middleware.tools.redaction import appended, map_tool_messages
from auger.core.safety.claude_tools import claude_names
from auger.core.safety.host_paths import AgentPaths
from auger.core.safety.rules import path_key
from auger.core.session.stream import tool_output_text


def _runner(request: Any) -> tuple[HookRunner | None, AugerContext | None]:
    ctx = getattr(request.runtime, "context", None)
    if not isinstance(ctx, AugerContext) or not isinstance(ctx.hooks, HookRunner) or not ctx.hooks.hooks:
        return None, None
    return ctx.hooks, ctx


def tool_subjects(name: str, tool: Any) -> list[str]:
    """What a tool matcher is matched against: the tool's name (`mcp__server__tool` for MCP tools),
    Claude Code's names for it (`Bash` for execute, `Edit`/`MultiEdit` for edit_file, ...), and for
    MCP tools also `server:tool` and the names matchers used before (`auger.core.mcp.names`)."""
    ident = mcp_identity(tool)
    if ident is None:
        return [name, *claude_names(name)]
    return [name, f"{ident[0]}:{ident[1]}", f"mcp__{ident[0]}__{ident[1]}", *legacy_names(*ident)]


def _notify(request: Any, result: HookResult) -> None:
    for message, level in result.notices:
        notify(request, message, level)


def _blocked(call: Mapping[str, Any], reason: str) -> ToolMessage:
    text = f"Blocked by a PreToolUse hook, the tool was not run: {reason}"
    return error_message(call, text, f"PreToolUse hook: {reason}")


def _tool_messages(result: Any) -> list[ToolMessage]:
    found: list[ToolMessage] = []

    def collect(msg: ToolMessage) -> ToolMessage:
        found.append(msg)
        return msg

    map_tool_messages(result, collect)
    return found


def _failed(result: Any) -> bool:
    return any(m.status == "error" for m in _tool_messages(result))


def _output(result: Any) -> str:
    return "\n".join(tool_output_text(m) for m in _tool_messages(result))


def _append(result: Any, extra: list[str]) -> Any:
    if not extra:
        return result
    note = "\n\n".join(extra)
    return map_tool_messages(result, lambda msg: appended(msg, note))


def _replace(result: Any, output: Any) -> Any:
    """The tool's result with `output` (a PostToolUse hook's replacement) as its content."""
    return map_tool_messages(result, lambda msg: msg.model_copy(update={"content": output}))


class _Call:
    """One tool call going through the hooks (shared by the sync and async paths)."""

    def __init__(self, request: Any, ctx: AugerContext) -> None:
        self.request, self.ctx = request, ctx
        call = request.tool_call
        self.name, self.args = str(call["name"]), dict(call.get("args") or {})
        self.subjects = tool_subjects(self.name, request.tool)
        self.agent_type = str(self.args.get("subagent_type") or "") if self.name == "task" else ""
        self.paths: AgentPaths | None = getattr(ctx.permissions, "paths", None)
        self.base = {
            "session_id": ctx.thread_id or "",
            "permission_mode": ctx.mode,
            "tool_name": self.name,
            "tool_input": self.hook_input(self.args),
            "tool_use_id": call.get("id") or "",
        }

    def hook_input(self, args: dict[str, Any]) -> dict[str, Any]:
        """`args` with a file tool's path as the host file it reaches (as Claude Code's hooks get
        it: `/~auger/AGENTS.md` -> `$AUGER_HOME/AGENTS.md`, `/src/a.py` -> `<root>/src/a.py`)."""
        key = path_key(self.name)
        host = self.paths.host(str(args[key])) if self.paths and key and args.get(key) else None
        return {**args, key: host} if key and host else args

    def agent_input(self, updated: dict[str, Any]) -> dict[str, Any]:
        """A hook's `updatedInput` with a host path mapped back to the agent path (one outside
        the project and the mounts is taken as an agent path, as a hook may have written it so)."""
        key = path_key(self.name)
        value = updated.get(key) if key else None
        agent = self.paths.agent_path(value) if self.paths and isinstance(value, str) and value else None
        return {**updated, key: agent} if key and agent else updated

    def subagent_payload(self, output: str | None = None) -> dict[str, Any]:
        data = {"session_id": self.base["session_id"], "agent_type": self.agent_type}
        data["agent_id"] = self.base["tool_use_id"]
        if output is None:
            data["prompt"] = self.args.get("description", "")
        else:
            data["output"] = output
        return data

    def ran_before(self) -> HookResult | None:
        """What this call's PreToolUse hooks said when the model's reply arrived (its
        `updatedInput` is in the call already), or None: they run now."""
        pre: HookResult | None = self.ctx.pre_tool.get(str(self.base["tool_use_id"]))
        if pre is None:
            return None
        return dataclasses.replace(pre, updated_input=None, notices=[])

    def after_pre(self, pre: HookResult) -> ToolMessage | None:
        """The refusal if PreToolUse blocked; else applies `updatedInput` to the request."""
        _notify(self.request, pre)
        if pre.blocked or pre.permission == "deny":
            return _blocked(self.request.tool_call, pre.reason or "denied")
        if pre.updated_input:
            self.args = {**self.args, **self.agent_input(pre.updated_input)}
            self.request = self.request.override(tool_call={**self.request.tool_call, "args": self.args})
        return None

    def post(self, result: Any) -> tuple[str, dict[str, Any]]:
        failed = _failed(result)
        payload = {**self.base, "tool_input": self.hook_input(self.args)}
        payload["error" if failed else "tool_response"] = _output(result)
        return ("PostToolUseFailure" if failed else "PostToolUse"), payload

    def finish(self, result: Any, *outcomes: HookResult) -> Any:
        extra: list[str] = []
        for outcome in outcomes:
            _notify(self.request, outcome)
            if outcome.updated_output is not None:
                result = _replace(result, outcome.updated_output)
            extra += outcome.context
            if outcome.blocked:
                extra.append(f"Hook feedback: {outcome.reason}")
        return _append(result, extra)


# A call's hooks in order, written once for the sync and the async graph: a generator yields each
# step — a hook event to run, `(event, payload, subjects)`, or the request to hand on — and is sent
# its answer (`HookResult`, or the handler's result); `_run` / `_arun` drive it.
Steps = Generator[Any, Any, Any]


def _model_steps(request: Any, runner: HookRunner, ctx: AugerContext) -> Steps:
    base, spec = {"session_id": ctx.thread_id or "", "permission_mode": ctx.mode}, ctx.model_spec or ""
    if runner.has("PreModel"):
        pre = yield "PreModel", model_hooks.pre_payload(request, base, spec), [spec]
        _notify(request, pre)
        model_hooks.check("PreModel", pre)
        request = model_hooks.modified(request, pre)
    result = yield request
    if runner.has("PostModel"):
        post = yield "PostModel", model_hooks.post_payload(pre_tool.reply_message(result), base, spec), [spec]
        _notify(request, post)
        model_hooks.check("PostModel", post)
    # the reply's tool calls through PreToolUse now (`auger.core.middleware.tools.pre_tool`)
    tools = pre_tool.tools_by_name(request)
    updates: dict[str, dict[str, Any]] = {}
    for tool_call in pre_tool.pending_calls(result, ctx.pre_tool) if runner.has("PreToolUse") else []:
        view = ToolCallRequest(tool_call, tools.get(tool_call["name"]), request.state, request.runtime)
        call = _Call(view, ctx)
        pre = yield "PreToolUse", call.base, call.subjects
        ctx.pre_tool[str(tool_call["id"])] = pre
        _notify(request, pre)
        pre.notices = []  # shown once, here
        if pre.updated_input and not pre.blocked:
            updates[str(tool_call["id"])] = {**call.args, **call.agent_input(pre.updated_input)}
    return pre_tool.apply_updates(result, updates)


def _tool_steps(request: Any, runner: HookRunner, ctx: AugerContext) -> Steps:
    call = _Call(request, ctx)
    if call.agent_type:
        _notify(request, (yield "SubagentStart", call.subagent_payload(), [call.agent_type]))
    refusal = call.after_pre(call.ran_before() or (yield "PreToolUse", call.base, call.subjects))
    if refusal is not None:
        return refusal
    result = yield call.request
    event, payload = call.post(result)
    outcomes = [(yield event, payload, call.subjects)]
    if call.agent_type:
        stop = call.subagent_payload(_output(result))
        outcomes.append((yield "SubagentStop", stop, [call.agent_type]))
    return call.finish(result, *outcomes)


def _run(steps: Callable[..., Steps], request: Any, handler: Callable[[Any], Any]) -> Any:
    runner, ctx = _runner(request)
    if runner is None or ctx is None:
        return handler(request)
    flow, answer = steps(request, runner, ctx), None
    while True:
        try:
            step = flow.send(answer)
        except StopIteration as done:
            return done.value
        answer = runner.run_sync(*step) if isinstance(step, tuple) else handler(step)


async def _arun(steps: Callable[..., Steps], request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    runner, ctx = _runner(request)
    if runner is None or ctx is None:
        return await handler(request)
    flow, answer = steps(request, runner, ctx), None
    while True:
        try:
            step = flow.send(answer)
        except StopIteration as done:
            return done.value
        answer = await (runner.run(*step) if isinstance(step, tuple) else handler(step))


class HooksMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return _run(_model_steps, request, handler)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await _arun(_model_steps, request, handler)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return _run(_tool_steps, request, handler)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await _arun(_tool_steps, request, handler)
