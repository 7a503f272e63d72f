"""Answering the agent's approval requests (LangGraph interrupts of the human-in-the-loop middleware).

For each action the agent wants approved, in this order: a rule this thread was granted
("always allow"), or an allow rule of the config, covers it -> approve; a PermissionRequest
hook decides; the turn's `ApprovalPolicy` decides (headless); else an `ApprovalRequested` event
goes to the front end and the turn waits on its future. An "approve_always" grants the
decision's rule (default: the suggested `rule_for_call`) to the thread and, with `persist`,
writes it to the user or project config (`auger.core.safety.permissions.add_rule`). A
decision's `mode` comes back in the resume value (`"mode"`): the turn goes on in that mode
(`auger.core.session.turn`). Notification hooks (`permission_prompt`) run just before a human
is asked.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.safety.permissions import add_rule, rule_for_call

if TYPE_CHECKING:
    from auger.core.port import TurnOptions
    from auger.core.session.lifecycle import Put
    from auger.core.session.session import Session

log = logging.getLogger("auger.safety")


def mcp_identity(session: Session, name: str) -> tuple[str, str] | None:
    """(server, tool) when `name` is a tool of a connected MCP server."""
    manager = session.runtime.mcp
    if manager is None:
        return None
    try:
        for tool in manager.tools():
            meta = tool.metadata or {}
            if tool.name == name and meta.get("mcp_server"):
                return str(meta["mcp_server"]), str(meta["mcp_tool"])
    except Exception:
        log.exception("listing MCP tools failed")
    return None


def suggested_rule(session: Session, name: str, args: dict[str, Any]) -> str:
    try:
        return rule_for_call(name, args, mcp_identity(session, name))
    except Exception:
        log.exception("rule_for_call failed")
        return name


async def decide(session: Session, action: dict[str, Any], options: TurnOptions, put: Put) -> dict[str, Any]:
    """The resume value for one HITL action request: approve, or reject with a message."""
    name, args = str(action.get("name")), dict(action.get("args") or {})
    request = ev.ApprovalRequested(
        request_id=uuid.uuid4().hex[:12],
        call_id=str(action.get("id") or ""),
        name=name,
        args=args,
        description=str(action.get("description") or ""),
        parent_id=action.get("parent"),
        suggested_rule=suggested_rule(session, name, args),
        decided_by=str(action.get("decided_by") or "mode"),  # the verdict's `by` (Turn)
        future=asyncio.get_running_loop().create_future(),
    )
    decision = _granted(session, request) or await session.lifecycle.permission_request(
        session.thread_id, options.mode, request, put
    )
    if decision is None and options.approval is not None:
        decision = options.approval(request, options.mode)
    if decision is None:
        await session.lifecycle.notify(
            session.thread_id,
            options.mode,
            f"auger needs your permission to use {name}",
            "permission_prompt",
            put,
        )
        decision = await session.ask(request, put)
    if decision.kind == "approve_always":
        grant(session, request, decision, put)
    if decision.kind == "reject":
        return {"type": "reject", **({"message": decision.message} if decision.message else {})}
    return {"type": "approve", **({"mode": decision.mode} if decision.mode else {})}


def _granted(session: Session, request: ev.ApprovalRequested) -> ev.ApprovalDecision | None:
    """Approve a call that an allow rule covers: one granted earlier in this thread, or one saved
    in config ("always allow, saved" in an earlier session). A tool call with such a rule never
    gets here (PermissionMiddleware allowed it); an approval no middleware sees — an MCP server's
    sampling request (`mcp_sampling`) — does."""
    verdict = session.runtime.permissions.evaluate(
        request.name,
        request.args,
        mode="manual",
        gated=True,
        grants=sorted(session.grants),
        mcp=mcp_identity(session, request.name),
    )
    granted = verdict.action == "allow" and verdict.by in ("grant", "rule")  # not a plan: it is asked
    return ev.ApprovalDecision("approve") if granted else None


def grant(session: Session, request: ev.ApprovalRequested, decision: ev.ApprovalDecision, put: Put) -> None:
    rule = decision.rule or request.suggested_rule or request.name
    session.grants.add(rule)
    if not decision.persist:
        return
    try:
        path = add_rule(session.runtime.settings, "allow", rule, scope=decision.persist)
    except Exception as exc:
        put(ev.Notice(f'Could not save the rule "{rule}": {exc}', "warning"))
        return
    session.runtime.permissions.add("allow", rule)
    put(ev.Notice(f'Added allow rule "{rule}" to {path}.'))
