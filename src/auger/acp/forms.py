"""An MCP server's form (`InputRequested`) as ACP's `elicitation/create` (form mode, scoped to
the session), when the editor's `initialize` capabilities offer `elicitation.form`; the editor's
answer (accept + content, decline, cancel) goes back through the port (`resolve_input`). Content
the agent refuses is asked again once, with the reason; an editor without forms never sees the
request (the turn's `TurnOptions.forms` is False: the core declines it, with a notice)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from acp import schema as s

from auger.core import events as ev
from auger.core.port import form_fields
from auger.errors import AugerError, UsageError

if TYPE_CHECKING:
    from acp.interfaces import Client

    from auger.acp.prompt import AcpSession

log = logging.getLogger("auger.acp")
TRIES = 2


def offers_forms(capabilities: dict[str, Any]) -> bool:
    """The client's `initialize` capabilities (wire form) include form elicitation."""
    elicitation = capabilities.get("elicitation")
    return isinstance(elicitation, dict) and elicitation.get("form") is not None


def editor_schema(schema: dict[str, Any]) -> s.ElicitationSchema:
    """The request's schema as ACP writes it (an optional field's `anyOf` with null unwrapped)."""
    fields = form_fields(schema)
    properties: dict[str, Any] = {}
    for f in fields:
        prop: dict[str, Any] = {"type": "string" if f.kind == "enum" else f.kind, "title": f.label}
        extras = {
            "description": f.description or None,
            "default": f.default,
            "minLength": f.min_length,
            "maxLength": f.max_length,
            "format": f.format,
            "minimum": f.minimum,
            "maximum": f.maximum,
            "enum": [v for v, _ in f.choices] or None,
            "enumNames": [n for _, n in f.choices] or None,
        }
        properties[f.name] = prop | {k: v for k, v in extras.items() if v is not None}
    required = [f.name for f in fields if f.required]
    return s.ElicitationSchema.model_validate(
        {"type": "object", "properties": properties, "required": required}
    )


async def ask_editor(conn: Client, session: AcpSession, request: ev.InputRequested) -> None:
    message = f"MCP server '{request.server}' asks: {request.message}"
    for _ in range(TRIES):
        answer = await _editor_answer(conn, session, request, message)
        try:
            await session.port.resolve_input(request.request_id, answer)
            return
        except UsageError as exc:  # content that does not fit: ask again, saying why
            message = f"{exc.message} MCP server '{request.server}' asks: {request.message}"
        except AugerError:  # the turn is over (cancelled) by now
            return
    try:  # refused twice: the server hears `decline`
        await session.port.resolve_input(request.request_id, ev.InputAnswer("decline"))
    except AugerError:
        log.info("form %s was already answered", request.request_id)


async def _editor_answer(
    conn: Client, session: AcpSession, request: ev.InputRequested, message: str
) -> ev.InputAnswer:
    try:
        mode = s.ElicitationFormSessionMode(
            session_id=session.id, requested_schema=editor_schema(request.schema)
        )
        response = await conn.create_elicitation(message=message, mode=mode)
    except asyncio.CancelledError:
        raise
    except Exception:  # the editor could not answer: the server hears `cancel`, the turn goes on
        log.exception("elicitation/create failed")
        return ev.InputAnswer("cancel")
    if isinstance(response, s.AcceptElicitationResponse):
        return ev.InputAnswer("accept", response.content or {})
    return ev.InputAnswer("decline" if response.action == "decline" else "cancel")
