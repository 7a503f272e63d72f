"""TurnToolsMiddleware: a turn that invokes a skill (or command) with `allowed-tools` may use only those.

The list comes from the invocation (`AugerContext.turn_tools`, rule strings in auger's or Claude
Code's syntax: `read_file`, `Read`, `Bash(git diff:*)`, `mcp__github__get_issue`). For that turn
the model is offered only the tools a rule names, and a call no rule allows (`Bash(git diff:*)`
does not allow `git push`) is refused with a message the model reads. Approvals, deny rules and
hooks still apply to what is left: the list narrows the tools, it never lets anything through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import ToolMessage

from auger.core.agent.context import AugerContext
from auger.core.middleware.base import ToolFilter
from auger.core.middleware.tools.permissions import error_message, mcp_identity
from auger.core.safety.rules import Rule, covers, parse_rule, subject_for


def _rules(ctx: Any) -> list[Rule] | None:
    """This turn's allowed-tools as rules (None: every tool)."""
    if not isinstance(ctx, AugerContext) or ctx.turn_tools is None:
        return None
    return [parse_rule(text) for text in ctx.turn_tools]  # checked when the skill was loaded


def _offered(rule: Rule, name: str, tool: Any) -> bool:
    ident = mcp_identity(tool)
    if rule.mcp is not None:
        return ident is not None and rule.mcp[0] == ident[0] and rule.mcp[1] in ("*", ident[1])
    return name in (rule.tool, *rule.also) or (rule.tool == "WebFetch" and "url" in _arg_names(tool))


def _arg_names(tool: Any) -> Sequence[str]:
    schema = getattr(tool, "args", None)
    return list(schema) if isinstance(schema, dict) else []


def turn_allows(ctx: Any, name: str, args: dict[str, Any], mcp: tuple[str, str] | None) -> bool:
    """Whether this turn's allowed-tools (if any) allow the call (so no approval is asked for a
    call that would be refused)."""
    if (rules := _rules(ctx)) is None:
        return True
    root = getattr(ctx.permissions, "paths", ".")
    return covers(rules, subject_for(name, args, root, mcp)) is not None


class TurnToolsMiddleware(ToolFilter):
    def active(self, request: Any) -> bool:
        return _rules(request.runtime.context) is not None

    def offered(self, request: Any, name: str, tool: Any) -> bool:
        return any(_offered(rule, name, tool) for rule in _rules(request.runtime.context) or ())

    def allows(self, request: Any) -> bool:
        call = request.tool_call
        name, args = str(call["name"]), dict(call.get("args") or {})
        return turn_allows(request.runtime.context, name, args, mcp_identity(request.tool))

    def refusal(self, request: Any) -> ToolMessage:
        call = request.tool_call
        allowed = ", ".join(r.text for r in _rules(request.runtime.context) or ()) or "none"
        reason = f"not in this skill's (or command's) allowed-tools ({allowed})"
        text = f"Refused: {call['name']} is {reason}. Do the task with those tools, or say what is missing."
        return error_message(call, text, reason)
