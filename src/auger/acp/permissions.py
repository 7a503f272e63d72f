"""Approvals as `session/request_permission`, and the editor's answer as an `ApprovalDecision`.

| ACP option (kind) | auger decision |
|---|---|
| `allow` (allow_once) | approve this call |
| `always` (allow_always) | approve_always: the suggested rule (`execute(git status *)`) for the thread |
| `reject` (reject_once) | reject: the model is told the user declined |
| cancelled (the prompt was cancelled, or the editor closed the request) | reject |

"Always" is the TUI's `a`: the rule is granted for the rest of the thread, not written to config.
"""

from __future__ import annotations

from typing import Any

from acp import schema as s

from auger.core import events as ev

ALLOW, ALWAYS, REJECT = "allow", "always", "reject"
DECLINED = "The user declined this call in the editor. Do not retry it; ask what they want instead."


def options(request: ev.ApprovalRequested) -> list[s.PermissionOption]:
    always = f"Always allow {request.suggested_rule}" if request.suggested_rule else "Always allow"
    return [
        s.PermissionOption(option_id=ALLOW, name="Allow once", kind="allow_once"),
        s.PermissionOption(option_id=ALWAYS, name=always, kind="allow_always"),
        s.PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
    ]


def tool_call(request: ev.ApprovalRequested, title: str) -> s.ToolCallUpdate:
    """The tool call the request is about (the `tool_call` of the same id came before)."""
    meta = {
        "auger": {
            "tool": request.name,
            "reason": request.description,
            "suggested_rule": request.suggested_rule,
        }
    }
    return s.ToolCallUpdate(
        tool_call_id=request.call_id, title=title, raw_input=request.args, status="pending", field_meta=meta
    )


def decision(response: Any) -> ev.ApprovalDecision:
    """The editor's answer (a RequestPermissionResponse) as auger's decision."""
    outcome = getattr(response, "outcome", None)
    chosen = getattr(outcome, "option_id", None)
    if chosen == ALLOW:
        return ev.ApprovalDecision("approve")
    if chosen == ALWAYS:
        return ev.ApprovalDecision("approve_always")
    if getattr(outcome, "outcome", None) == "cancelled":
        return ev.ApprovalDecision("reject", "Cancelled by the user.")
    return ev.ApprovalDecision("reject", DECLINED)
