"""Approvals as `session/request_permission`, and the editor's answer as an `ApprovalDecision`.

| ACP option (kind) | auger decision |
|---|---|
| `allow` (allow_once) | approve this call |
| `always` (allow_always) | approve_always: the suggested rule (`execute(git status *)`) for the thread |
| `reject` (reject_once) | reject: the model is told the user declined |
| cancelled (the prompt was cancelled, or the editor closed the request) | reject |

"Always" is the TUI's `a`: the rule is granted for the rest of the thread, not written to config.

A plan (`present_plan`, `decided_by` "plan") offers: `plan:auto-edit` / `plan:manual` (allow_once:
accept, and go on in that mode) and `reject` (keep planning; the editor has no text field, so the
model is told to ask what to change).
"""

from __future__ import annotations

from typing import Any

from acp import schema as s

from auger.core import events as ev

ALLOW, ALWAYS, REJECT = "allow", "always", "reject"
ACCEPT = "plan:"  # + the mode to go on in
DECLINED = "The user declined this call in the editor. Do not retry it; ask what they want instead."
KEEP_PLANNING = "The user wants to keep planning: ask what to change in the plan, then present it again."


def options(request: ev.ApprovalRequested) -> list[s.PermissionOption]:
    if request.decided_by == "plan":
        return [
            s.PermissionOption(option_id=ACCEPT + "auto-edit", name="Accept, auto-edit", kind="allow_once"),
            s.PermissionOption(
                option_id=ACCEPT + "manual", name="Accept, ask before edits", kind="allow_once"
            ),
            s.PermissionOption(option_id=REJECT, name="Keep planning", kind="reject_once"),
        ]
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


def decision(response: Any, plan: bool = False) -> ev.ApprovalDecision:
    """The editor's answer (a RequestPermissionResponse) as auger's decision."""
    outcome = getattr(response, "outcome", None)
    chosen = getattr(outcome, "option_id", None)
    if chosen == ALLOW:
        return ev.ApprovalDecision("approve")
    if chosen == ALWAYS:
        return ev.ApprovalDecision("approve_always")
    if isinstance(chosen, str) and chosen.startswith(ACCEPT):
        return ev.ApprovalDecision("approve", mode=chosen[len(ACCEPT) :])
    if chosen == REJECT and plan:
        return ev.ApprovalDecision("reject", KEEP_PLANNING)
    if getattr(outcome, "outcome", None) == "cancelled":
        return ev.ApprovalDecision("reject", "Cancelled by the user.")
    return ev.ApprovalDecision("reject", DECLINED)
