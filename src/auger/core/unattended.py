"""Approval policies for a run with nobody to ask: headless (`auger -n`) and `auger serve`'s chat
endpoint. Whatever needs approval is refused, and the refusal tells the model why and what would
allow the call — naming a mode only when that mode would actually let it through (an ask rule or
a protected path wins over every mode)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from auger.core import events as ev
from auger.core.context import FILE_EDIT_TOOLS, AugerContext
from auger.core.permissions import Verdict

Front = Literal["headless", "serve"]
Policy = Callable[[ev.ApprovalRequested, AugerContext], ev.ApprovalDecision]

_WHO = {
    "headless": "auger is running without a human (headless)",
    "serve": "auger serve is answering this chat with nobody at the keyboard",
}
_SET_MODE = {"headless": "run with --mode {mode}", "serve": "start auger serve with --mode {mode}"}
_PROTECTED = "(.git/, .auger/, ~/.ssh, AUGER_HOME)"


def unattended_policy(front: Front) -> Policy:
    def policy(request: ev.ApprovalRequested, ctx: AugerContext) -> ev.ApprovalDecision:
        return ev.ApprovalDecision("reject", refusal(request, ctx, front))

    return policy


def refusal(request: ev.ApprovalRequested, ctx: AugerContext, front: Front) -> str:
    why = request.description or f"{request.name} needs approval in {ctx.mode!r} mode."
    return (
        f"Not run: {why} {_WHO[front]}, so nobody can approve it. Do not retry it; finish what you "
        f"can without it and say what is left. {unlock_hint(request, ctx, front)}"
    )


def unlock_hint(request: ev.ApprovalRequested, ctx: AugerContext, front: Front) -> str:
    """What would let this call through next time, for the verdict that stopped it."""
    by = _decided_by(request, ctx)
    if by == "protected":
        return f"Only a human approves a write to a protected path {_PROTECTED}, in an interactive auger."
    if by == "rule":
        return (
            "An ask rule in [permissions] asks for it whatever the mode: a human can approve it in an "
            "interactive auger, or the user can remove the rule."
        )
    mode = "auto-edit" if request.name in FILE_EDIT_TOOLS and ctx.mode == "manual" else "yolo"
    rule = request.suggested_rule or request.name
    return (
        f"The user can allow it: {_SET_MODE[front].format(mode=mode)}, or add the allow rule "
        f'"{rule}" to [permissions].'
    )


def _decided_by(request: ev.ApprovalRequested, ctx: AugerContext) -> str:
    verdict = ctx.verdicts.get(request.call_id) if isinstance(ctx, AugerContext) else None
    if isinstance(verdict, Verdict):
        return verdict.by
    # no verdict at hand (a remote session's request): the description names what decided
    if "needs approval: mode '" in request.description or not request.description:
        return "mode"
    return "protected" if "protected path" in request.description else "rule"


headless_policy = unattended_policy("headless")
serve_policy = unattended_policy("serve")
