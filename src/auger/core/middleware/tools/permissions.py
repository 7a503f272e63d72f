"""PermissionMiddleware: permission rules on every tool call.

Two halves, one verdict (`tool_verdict`, see `auger.core.safety.permissions` for the order):

* before the tools run, HITL's `when` predicate (built by `interrupt_config`) asks for approval
  when the verdict is "ask" — an ask rule, a protected path, or the approval mode — and the
  approval request's description says which;
* as a tool call runs, `wrap_tool_call` refuses it when a deny rule matches (checked again on
  the final input, after PreToolUse hooks may have changed it) or when plan mode does not let
  it run (`plan_verdict`: the tool list the model is offered is not the only guard): the tool
  is not run, the model reads which rule (or mode) refused it, and the user gets a Notice.

Verdicts are memoised per tool-call id in the run context for the turn, so the `when`
predicate answers the same when the run resumes after an approval, even if an "always allow"
given in that approval changed the grants (HITL requires it to).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from auger.core.agent.context import GATED_TOOLS, AugerContext
from auger.core.middleware.base import read_only
from auger.core.middleware.tools.pre_tool import hook_verdict
from auger.core.safety.host_paths import OutsideProject, normalise
from auger.core.safety.permissions import (
    Verdict,
    describe_call,
    mode_verdict,
    plan_verdict,
    refusal_message,
)
from auger.core.safety.rules import path_key

REFUSED_FLAG = "auger_refused"  # additional_kwargs marker on a ToolMessage for a call that never ran


def mcp_identity(tool: Any) -> tuple[str, str] | None:
    meta = getattr(tool, "metadata", None) or {}
    if meta.get("mcp_server") and meta.get("mcp_tool"):
        return str(meta["mcp_server"]), str(meta["mcp_tool"])
    return None


def tool_verdict(
    ctx: Any,
    name: str,
    args: Mapping[str, Any],
    *,
    gated: bool,
    mcp: tuple[str, str] | None = None,
    call_id: str | None = None,
) -> Verdict:
    """The verdict for one call under the run context (memoised per call id for the turn)."""
    if not isinstance(ctx, AugerContext):
        return Verdict("ask", "no run context") if gated else mode_verdict(name, "manual", False)
    if call_id and call_id in ctx.verdicts:
        memo: Verdict = ctx.verdicts[call_id]
        return memo
    if ctx.permissions is None:
        verdict = mode_verdict(name, ctx.mode, gated and name not in ctx.always_allow)
    else:
        verdict = ctx.permissions.evaluate(
            name, args, mode=ctx.mode, gated=gated, grants=sorted(ctx.always_allow), mcp=mcp
        )
    if ctx.turn_tools is not None and verdict.action != "deny":
        from auger.core.middleware.tools.turn_tools import turn_allows  # it imports this module

        if not turn_allows(ctx, name, dict(args), mcp):
            verdict = Verdict("deny", "not in the skill's allowed-tools", by="turn")
    if call_id:
        verdict = hook_verdict(verdict, ctx.pre_tool.get(call_id))
        ctx.verdicts[call_id] = verdict
    return verdict


def approval_description(name: str, args: Mapping[str, Any], verdict: Verdict) -> str:
    return f"{name} {describe_call(name, args)} needs approval: {verdict.reason}."


def error_message(call: Mapping[str, Any], text: str, refused: str | None = None) -> ToolMessage:
    """The error result the model reads for `call`; `refused`: why the call never ran (REFUSED_FLAG)."""
    return ToolMessage(
        text,
        tool_call_id=call.get("id") or "",
        name=str(call["name"]),
        status="error",
        additional_kwargs={REFUSED_FLAG: refused} if refused is not None else {},
    )


def refused(call: Mapping[str, Any], verdict: Verdict) -> ToolMessage:
    text = refusal_message(str(call["name"]), dict(call.get("args") or {}), verdict)
    return error_message(call, text, verdict.reason)


def interrupt_config(
    tool_names: Iterable[str],
    gated: Iterable[str] = (),
    mcp_names: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """HITL `interrupt_on` for every tool in `tool_names`: `when` asks only on an "ask" verdict;
    a tool is subject to the approval mode when it is in GATED_TOOLS or `gated`; `mcp_names`
    maps MCP tool names to (server, tool) for `server:tool` rules."""
    gated_names = GATED_TOOLS | frozenset(gated)
    mcp_of = dict(mcp_names or {})

    def verdict(call: Any, runtime: Any, tool: Any = None) -> Verdict:
        ctx, name = getattr(runtime, "context", None), call["name"]
        mcp = mcp_identity(tool) or mcp_of.get(name)
        return tool_verdict(
            ctx, name, call.get("args") or {}, gated=name in gated_names, mcp=mcp, call_id=call.get("id")
        )

    def when(request: Any) -> bool:
        return verdict(request.tool_call, request.runtime, request.tool).action == "ask"

    def describe(tool_call: Any, state: Any, runtime: Any) -> str:
        name, args = tool_call["name"], tool_call.get("args") or {}
        return approval_description(name, args, verdict(tool_call, runtime))

    config = {"allowed_decisions": ["approve", "reject"], "when": when, "description": describe}
    return {name: dict(config) for name in dict.fromkeys(tool_names)}


def plan_denial(ctx: AugerContext, request: Any) -> Verdict | None:
    """Plan mode's refusal of this call (a tool of the graph; MCP tools are judged where they
    run, `auger.core.middleware.tools.mcp_tools`, by the same verdict)."""
    if request.tool is None:
        return None
    verdict = plan_verdict(request.tool_call["name"], ctx.mode, mcp_read_only=read_only(request.tool))
    return verdict if verdict is not None and verdict.action == "deny" else None


def notify(request: Any, message: str, level: str = "warning") -> None:
    """A Notice for the user on the run's custom stream."""
    writer = getattr(request.runtime, "stream_writer", None)
    if callable(writer):
        with contextlib.suppress(Exception):  # best effort: the model still reads the refusal
            writer({"auger_event": "notice", "message": message, "level": level})


class PermissionMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Refuses calls that a deny rule matches (the `when` gate in `interrupt_config` does asks)."""

    def _denied(self, request: Any) -> ToolMessage | None:
        ctx = getattr(request.runtime, "context", None)
        if not isinstance(ctx, AugerContext):
            return None
        call = request.tool_call
        verdict = plan_denial(ctx, request)
        if verdict is None and ctx.permissions is not None:
            verdict = ctx.permissions.denial(call["name"], call.get("args") or {}, mcp_identity(request.tool))
        if verdict is None:
            return None
        where = "" if verdict.by in ("plan", "paths") else " in [permissions]"
        what = f"{call['name']} {describe_call(call['name'], call.get('args') or {})}"
        notify(request, f"Refused {what}: {verdict.reason}{where}.")
        return refused(call, verdict)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._denied(request) or handler(with_agent_path(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._denied(request) or await handler(with_agent_path(request))


def with_agent_path(request: Any) -> Any:
    """The call with its file path as the tools take it: a host path in the project or a mount
    (`<root>/src/a.py`, from a traceback) becomes its agent path (`/src/a.py`,
    `auger.core.safety.host_paths.AgentPaths.agent`, the resolution the verdict used)."""
    ctx = getattr(request.runtime, "context", None)
    call = request.tool_call
    key = path_key(call["name"])
    args = call.get("args") or {}
    raw = args.get(key) if key else None
    if not isinstance(ctx, AugerContext) or ctx.permissions is None or not isinstance(raw, str):
        return request
    try:
        agent = ctx.permissions.paths.agent(raw)
    except OutsideProject:
        return request  # outside the project: the verdict refused it already
    if agent is None or agent == normalise(raw):
        return request
    return request.override(tool_call={**call, "args": {**args, key: agent}})


def all_tool_names(extra: Sequence[str] = ()) -> list[str]:
    """Every tool auger's agent may call that the `when` gate should see."""
    from auger.core.safety.plan_mode import PLAN_TOOL
    from auger.core.safety.rules import FILE_TOOLS

    return sorted({*FILE_TOOLS, "execute", "task", "write_todos", PLAN_TOOL, *extra})
