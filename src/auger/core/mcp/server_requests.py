"""Requests an MCP server sends auger: `sampling/createMessage` (the server wants a model reply)
and `elicitation/create` (the server wants the user to fill in a form).

Policy (`SessionRequests`, set by each turn: `auger.core.mcp.callers`; without one, everything is refused):
* sampling is answered by the session's current model when its mode is `yolo` (approval is not
  asked: yolo approves everything); in any other mode a turn with a human asks first (an
  approval of `mcp_sampling`, as a tool call would: the TUI's prompt, an editor's permission
  request), and a run with nobody to ask refuses it with a message naming the server and how to
  allow it.
* elicitation (a form) is input, not a permission: it is asked in every mode, yolo included, as
  an `InputRequested` the front end answers (`auger.core.session.inputs`): accept with the
  content, decline or cancel go back to the server as they are. With nobody to ask (headless,
  a chat with no UI, a front end that shows no forms), a schema no form can show, or a URL-mode
  request, it is declined with a notice and a log line.
Sampling's answers and declined forms are also notices, so the user sees that a server asked.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from auger.core.agent.context import Approve

log = logging.getLogger("auger.mcp")
SAMPLING = "mcp_sampling"  # what a sampling approval is called (ApprovalRequested.name)
AskInput = Callable[[str, str, dict[str, Any]], Awaitable[Any]]  # (server, message, schema) -> InputAnswer
_REFUSED = -32600  # JSON-RPC "invalid request": what the SDK's own "not supported" answer uses


def _refusal(message: str) -> Any:
    from mcp.types import ErrorData

    return ErrorData(code=_REFUSED, message=message)


def sampling_callback(server: str, handler: Callable[[], Any]) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK callback for `server`: asks `handler()` (the answerer of the turn it serves now)."""

    async def sample(_context: Any, params: Any) -> Any:
        requests = handler()
        if requests is None:
            return _refusal(f"auger refused the sampling request of MCP server '{server}' (no session).")
        return await requests.sample(server, params)

    return sample


def elicitation_callback(server: str, handler: Callable[[], Any]) -> Callable[[Any, Any], Awaitable[Any]]:
    async def elicit(_context: Any, params: Any) -> Any:
        requests = handler()
        if requests is None:
            from mcp.types import ElicitResult

            return ElicitResult(action="decline")
        return await requests.elicit(server, params)

    return elicit


def _sampling_messages(params: Any) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    out: list[Any] = [SystemMessage(params.systemPrompt)] if params.systemPrompt else []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        text = "\n".join(str(getattr(b, "text", f"[{getattr(b, 'type', 'content')}]")) for b in blocks)
        out.append(AIMessage(text) if message.role == "assistant" else HumanMessage(text))
    return out


class SessionRequests:
    """Answers server requests for the turn running now: its mode, its model, its notices."""

    def __init__(
        self,
        settings: Any,
        mode: str,
        model_spec: str | None,
        model_params: dict[str, Any],
        notify: Callable[[str], None],
        *,
        approve: Approve | None = None,
        ask_input: AskInput | None = None,
    ) -> None:
        self.settings, self.mode, self.notify = settings, mode, notify
        self.model_spec, self.model_params = model_spec, model_params
        self.approve = approve  # asks the user (None: nobody to ask)
        self.ask_input = ask_input  # shows a form to the user (None: nobody to ask)

    async def sample(self, server: str, params: Any) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        spec = self.model_spec
        if self.mode != "yolo":
            why = await self._refused(server, params, spec)
            if why is not None:
                self.notify(why)
                return _refusal(why)
        from auger.core.agent.graph import model_factory

        try:
            model = model_factory(self.settings)(spec, dict(self.model_params))
            reply = await model.ainvoke(_sampling_messages(params))
        except Exception as exc:
            log.exception("sampling for %s failed", server)
            return _refusal(f"auger's model failed to answer: {type(exc).__name__}: {exc}")
        self.notify(f"MCP server '{server}' used the model ({spec}) for a reply (sampling).")
        content = reply.content
        text = (
            content
            if isinstance(content, str)
            else "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        )
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=str(text)),
            model=str(spec),
            stopReason="endTurn",
        )

    async def _refused(self, server: str, params: Any, spec: str | None) -> str | None:
        """Why sampling is refused (None: the user approved it)."""
        if self.approve is None:
            return (
                f"MCP server '{server}' asked for a model reply (sampling); refused in {self.mode!r} "
                "mode. Run with --mode yolo to let servers use the current model."
            )
        asked = "\n\n".join(m.content for m in _sampling_messages(params) if isinstance(m.content, str))
        answer = await self.approve(
            {
                "name": SAMPLING,
                "args": {"server": server, "messages": asked[:2000]},
                "description": f"MCP server '{server}' asks the model ({spec}) for a reply (sampling).",
            }
        )
        if answer.get("type") == "approve":
            return None
        said = f" ({answer['message']})" if answer.get("message") else ""
        return f"The user refused the sampling request of MCP server '{server}'{said}."

    async def elicit(self, server: str, params: Any) -> Any:
        from mcp.types import ElicitResult

        message = str(getattr(params, "message", ""))
        why = self._no_form(params)
        if why is not None or self.ask_input is None:
            log.info("declined the elicitation of MCP server %s: %s", server, why)
            self.notify(f"MCP server '{server}' asked for input ({message[:200]!r}); declined: {why}.")
            return ElicitResult(action="decline")
        answer = await self.ask_input(server, message, params.requestedSchema)
        log.info("MCP server %s's form: %s", server, answer.action)
        content = answer.content if answer.action == "accept" else None
        return ElicitResult(action=answer.action, content=content)

    def _no_form(self, params: Any) -> str | None:
        """Why the request is declined without asking (None: show the form)."""
        from auger.core.forms import form_fields

        if self.ask_input is None:
            return "nobody is here to fill in its form (a headless run or a front end without forms)"
        schema = getattr(params, "requestedSchema", None)
        if getattr(params, "mode", "form") != "form" or not isinstance(schema, dict):
            return "auger shows forms, not URL-mode requests"
        try:
            form_fields(schema)
        except ValueError as exc:
            return f"its form cannot be shown: {exc}"
        return None
