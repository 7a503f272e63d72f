"""Approval policies for a run with nobody to ask: headless (`auger -n`) and `auger serve`'s chat
endpoint (`auger.core.port.ApprovalPolicy`: request and mode in, decision out). Whatever needs
approval is refused, and the refusal tells the model why and what would allow the call — naming
a mode only when that mode would actually let it through (an ask rule or a protected path wins
over every mode). What decided is the request's `decided_by` (the verdict's `by`), so a remote
client's policy answers the same as an in-process one. A plan (`present_plan`, decided_by "plan")
is not refused: it was shown (printed, streamed), nobody accepted it, and the turn ends there
(`auger.core.middleware.prompt.plan_mode`), having changed nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from auger.core import events as ev
from auger.core.agent.context import FILE_EDIT_TOOLS

Front = Literal["headless", "serve"]
Policy = Callable[[ev.ApprovalRequested, str], ev.ApprovalDecision]

_WHO = {
    "headless": "auger is running without a human (headless)",
    "serve": "auger serve is answering this chat with nobody at the keyboard",
}
_SET_MODE = {"headless": "run with --mode {mode}", "serve": "start auger serve with --mode {mode}"}
_PROTECTED = "(.git/, .auger/, ~/.ssh, AUGER_HOME)"


def unattended_policy(front: Front) -> Policy:
    def policy(request: ev.ApprovalRequested, mode: str) -> ev.ApprovalDecision:
        if request.decided_by == "plan":
            return ev.ApprovalDecision("approve")  # shown, not accepted: the mode stays "plan"
        return ev.ApprovalDecision("reject", refusal(request, mode, front))

    return policy


def refusal(request: ev.ApprovalRequested, mode: str, front: Front) -> str:
    why = request.description or f"{request.name} needs approval in {mode!r} mode."
    return (
        f"Not run: {why} {_WHO[front]}, so nobody can approve it. Do not retry it; finish what you "
        f"can without it and say what is left. {unlock_hint(request, mode, front)}"
    )


def unlock_hint(request: ev.ApprovalRequested, mode: str, front: Front) -> str:
    """What would let this call through next time, for what stopped it (`request.decided_by`)."""
    if request.decided_by == "protected":
        return f"Only a human approves a write to a protected path {_PROTECTED}, in an interactive auger."
    if request.decided_by == "rule":
        return (
            "An ask rule in [permissions] asks for it whatever the mode: a human can approve it in an "
            "interactive auger, or the user can remove the rule."
        )
    unlock = "auto-edit" if request.name in FILE_EDIT_TOOLS and mode == "manual" else "yolo"
    rule = request.suggested_rule or request.name
    return (
        f"The user can allow it: {_SET_MODE[front].format(mode=unlock)}, or add the allow rule "
        f'"{rule}" to [permissions].'
    )


headless_policy = unattended_policy("headless")
serve_policy = unattended_policy("serve")
