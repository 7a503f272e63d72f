"""PreToolUse hooks run as soon as the model asks for a tool, before any approval prompt.

Claude Code runs PreToolUse before its permission prompt, so a hook can decide it:
`hookSpecificOutput.permissionDecision` "allow" skips the prompt, "ask" asks even where the mode
would not, "deny" (or a block: exit 2, `decision: "block"`) refuses the call. auger's approval
prompt comes from HITL's `when` predicate right after the model call, so `HooksMiddleware` runs
the PreToolUse hooks of every tool call in a reply when the reply arrives (`run_for_reply`), and:

* an `updatedInput` is written into the reply's tool call, so the approval prompt, the thread
  and the tool all see the arguments the hook chose;
* the outcome is kept per call id for the turn (`AugerContext.pre_tool`): the permission verdict
  reads it (`hook_verdict`), and the tool-call wrapper refuses a blocked call with the hook's reason.

Deny rules and protected paths still win over a hook's "allow", and ask rules still ask: a hook
can skip what the approval mode would ask, not the rules a user wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, ToolCall

from auger.core.hooks.runner import HookResult
from auger.core.middleware.base import ai_messages, map_reply, tool_name
from auger.core.safety.permissions import Verdict


def hook_verdict(verdict: Verdict, pre: HookResult | None) -> Verdict:
    """`verdict` (rules, protected paths, mode) with what the call's PreToolUse hooks decided."""
    if pre is None or verdict.action == "deny":
        return verdict
    why = f": {pre.permission_reason}" if pre.permission_reason else ""
    if pre.blocked or pre.permission == "deny":
        return Verdict(
            "deny", f"a PreToolUse hook denied it{why or ': ' + pre.reason}".rstrip(": "), by="hook"
        )
    if pre.permission == "allow" and verdict.action == "ask" and verdict.by == "mode":
        return Verdict("allow", f"a PreToolUse hook allowed it{why}", by="hook")
    if pre.permission == "ask" and verdict.action == "allow":
        return Verdict("ask", f"a PreToolUse hook asks{why}", by="hook")
    return verdict


def reply_message(result: Any) -> AIMessage | None:
    """The (last) AI message of a model call's result."""
    messages = ai_messages(result)
    return messages[-1] if messages else None


def tools_by_name(request: Any) -> dict[str, Any]:
    return {name: tool for tool in getattr(request, "tools", None) or [] if (name := tool_name(tool))}


def apply_updates(result: Any, updates: Mapping[str, dict[str, Any]]) -> Any:
    """The model's reply with the arguments of the calls in `updates` (call id -> new args)."""
    message = reply_message(result)
    if message is None or not updates:
        return result
    calls = [{**call, "args": updates.get(call.get("id") or "", call["args"])} for call in message.tool_calls]
    new = message.model_copy(update={"tool_calls": calls})
    return map_reply(result, lambda m: new if m is message else m)


def pending_calls(result: Any, memo: Mapping[str, Any]) -> list[ToolCall]:
    """The reply's tool calls whose PreToolUse hooks have not run yet this turn."""
    message = reply_message(result)
    calls = message.tool_calls if message is not None else []
    return [c for c in calls if c.get("id") and c["id"] not in memo]
