"""One `session/prompt`: the editor's content blocks as a prompt (text, embedded text resources,
images — refused by the turn, as a JSON-RPC error, when the model takes none), the turn's events
as session updates, its approvals as `session/request_permission`, its end as a stop reason.

Approvals are asked concurrently (a model may call several gated tools at once) and answered
through the port (`resolve_approval`); a cancelled turn withdraws the questions still open. A
plan accepted in the editor switches the session's mode (`current_mode_update`).
A turn that fails (provider down, bad model) is a JSON-RPC error with auger's one-line message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.helpers import update_current_mode

from auger.acp import permissions
from auger.acp.forms import ask_editor
from auger.acp.updates import UpdateMapper, title
from auger.core import events as ev
from auger.core.port import PromptImage, TurnOptions

if TYPE_CHECKING:
    from acp.interfaces import Client

    from auger.core.port import AgentPort, ClientFiles, ClientTerminal

log = logging.getLogger("auger.acp")
STOP_REASONS = {
    "done": "end_turn",
    "cancelled": "cancelled",
    "interrupted": "cancelled",
    "turn_limit": "max_turn_requests",
    "timeout": "end_turn",
}
TURN_FAILED = -32603  # JSON-RPC internal error: the turn could not finish (the message says why)


@dataclass
class AcpSession:
    """One ACP session: the port on its thread and what the editor chose for it."""

    port: AgentPort
    mapper: UpdateMapper
    mode: str
    files: ClientFiles | None = None  # the editor's file system, when it offers one
    terminal: ClientTerminal | None = None  # the editor's terminal, when it offers one
    forms: bool = False  # the editor shows MCP servers' forms (elicitation/create)
    asks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def id(self) -> str:
        return self.port.thread_id


def prompt_text(blocks: list[Any]) -> str:
    """Text blocks as typed; a resource link as `@path`; an embedded text resource as context."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"@{block.uri.removeprefix('file://')}")
        elif kind == "resource" and hasattr(block.resource, "text"):
            uri = block.resource.uri
            parts.append(f'\n<context uri="{uri}">\n{block.resource.text}\n</context>\n')
        elif kind != "image":  # images: `prompt_images`
            takes = "text, images and embedded text resources"
            raise RequestError.invalid_params(
                {"message": f"auger takes {takes}, not {kind or 'this'} blocks."}
            )
    return " ".join(p for p in parts if p)


def prompt_images(blocks: list[Any]) -> tuple[PromptImage, ...]:
    """The prompt's `image` blocks: base64 data with its MIME type, else the image's URI."""
    return tuple(
        PromptImage(block.mime_type, data=block.data or "", url="" if block.data else block.uri or "")
        for block in blocks
        if getattr(block, "type", "") == "image"
    )


async def run_prompt(
    conn: Client, session: AcpSession, text: str, images: tuple[PromptImage, ...] = ()
) -> str:
    """Run one turn; returns the ACP stop reason."""
    end = ev.TurnEnded("error", session.id)
    failure = ""
    options = TurnOptions(
        session.mode, files=session.files, terminal=session.terminal, images=images, forms=session.forms
    )
    try:
        async for event in session.port.send(text, options):
            if isinstance(event, ev.ApprovalRequested | ev.InputRequested):
                task = asyncio.create_task(
                    _ask(conn, session, event)
                    if isinstance(event, ev.ApprovalRequested)
                    else ask_editor(conn, session, event)
                )
                session.asks.add(task)
                task.add_done_callback(session.asks.discard)
            elif isinstance(event, ev.ModeChanged):  # a plan was accepted: the editor shows the mode
                session.mode = event.mode
                await conn.session_update(session_id=session.id, update=update_current_mode(event.mode))
            elif isinstance(event, ev.TurnEnded):
                end = event
            elif isinstance(event, ev.Error):
                failure = event.message
            else:
                for update in session.mapper.updates(event):
                    await conn.session_update(session_id=session.id, update=update)
    finally:
        for task in list(session.asks):
            task.cancel()
    if end.reason == "error":
        raise RequestError(TURN_FAILED, f"auger: {failure or 'the turn failed'}")
    return STOP_REASONS.get(end.reason, "end_turn")


async def _ask(conn: Client, session: AcpSession, request: ev.ApprovalRequested) -> None:
    decision = ev.ApprovalDecision("reject", "Cancelled by the user.")
    try:
        response = await conn.request_permission(
            session_id=session.id,
            tool_call=permissions.tool_call(request, title(request.name, request.args)),
            options=permissions.options(request),
        )
        decision = permissions.decision(response, plan=request.decided_by == "plan")
    except asyncio.CancelledError:
        raise
    except Exception:  # the editor could not answer: the call is refused, the turn goes on
        log.exception("session/request_permission failed")
    with contextlib.suppress(Exception):  # the turn may be over (cancelled) by now
        await session.port.resolve_approval(request.request_id, decision)
