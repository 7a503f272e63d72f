"""RemoteSession: the port (`auger.core.port.AgentPort`) over HTTP, against `auger serve`
(`auger --connect URL`). A front end cannot tell it from the in-process Session.

* `send(prompt, options)` streams `POST /threads/{id}/runs` and rebuilds the same IR events;
  approvals go back through the event's future (or `resolve_approval`), answered by the turn's
  policy here when it has one (headless); an MCP server's form (`InputRequested`) is answered
  with `resolve_input` (declined here when the turn has a policy or shows no forms); `cancel()`
  asks the server to stop the turn. The shared controls are `auger.remote.controls`.
* Every other operation is one generic `call(op, request)`: the table in `auger.core.operations`
  says the method, path and shapes, so the catalogue, `/model` choices and credential checks,
  `!command`, history and thread operations all come from the server. The client needs no
  config of its own.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypeVar

from auger import errors
from auger.core import events as ev
from auger.core import operations as ops
from auger.errors import AugerError, BusyError, ThreadError, UsageError
from auger.remote.controls import RemoteControls

if TYPE_CHECKING:
    import httpx

    from auger.core.port import TurnOptions

log = logging.getLogger("auger.remote")
TOKEN_ENV = "AUGER_SERVE_TOKEN"
Req = TypeVar("Req")
Res = TypeVar("Res")


class RemoteError(AugerError):
    """The auger server cannot be reached, refused the token, or answered something unexpected."""


KINDS: dict[str, type[AugerError]] = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, AugerError)
}
BY_STATUS: dict[int, type[AugerError]] = {400: UsageError, 404: ThreadError, 409: BusyError, 413: UsageError}


class RemoteSession(RemoteControls["httpx.AsyncClient"]):
    server_name = "the auger server"

    @classmethod
    async def connect(cls, url: str, token: str | None, *, thread_id: str | None = None) -> RemoteSession:
        """Check the server and the token, then open `thread_id` (None: a new thread)."""
        import httpx

        url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        client = httpx.AsyncClient(base_url=url, headers=headers, timeout=httpx.Timeout(30.0, read=120.0))
        session = cls(client, url=url)
        try:
            info = await session.call(ops.AGENT_INFO, ops.NoArgs())
            session.model_spec, session.default_mode, session.project = info.model, info.mode, info.project
            await session.open_thread(thread_id)
        except BaseException:
            await session.aclose()
            raise
        return session

    # -- controls (the rest: RemoteControls) ----------------------------------------------
    def _stop(self) -> None:
        """Ask the server to stop the running turn; the stream then ends with `cancelled`."""
        self._spawn(self._request("POST", f"/threads/{self.thread_id}/cancel"))

    # -- operations ------------------------------------------------------------------------
    async def call(self, op: ops.Operation[Req, Res], request: Req) -> Res:
        fields = ops.to_wire(request)
        path = op.path.format(**{name: fields.pop(name) for name in op.path_params})
        present = {k: v for k, v in fields.items() if v is not None}
        if op.method in ("GET", "DELETE"):
            body = await self._request(op.method, path, params=present)
        else:
            body = await self._request(op.method, path, json=present)
        return ops.from_wire(op.result, body)

    async def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        try:
            resp = await self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise RemoteError(
                f"Cannot reach the auger server at {self.url}: {exc or type(exc).__name__}.",
                hint="Is `auger serve` running there? Check the URL and port.",
            ) from None
        if resp.status_code >= 400:
            raise self._error(resp)
        return resp.json()

    def _error(self, resp: httpx.Response) -> AugerError:
        try:
            data = resp.json()
            message, kind = str(data.get("error") or resp.text), str(data.get("kind") or "")
        except ValueError:
            message, kind = resp.text[:200] or resp.reason_phrase, ""
        if resp.status_code == 401:
            return RemoteError(
                f"The auger server at {self.url} refused the token: {message}",
                hint=f"Pass the token `auger serve` printed with --token or {TOKEN_ENV}.",
            )
        cls = KINDS.get(kind) or BY_STATUS.get(resp.status_code)
        if cls is None:
            return RemoteError(f"The auger server answered {resp.status_code}: {message}")
        return cls(message)

    # -- a turn ----------------------------------------------------------------------------
    async def send(self, prompt: str, options: TurnOptions) -> AsyncIterator[ev.Event]:
        if self._running:
            raise BusyError("A turn is already running on this session.")
        body = {  # None: not given (the server's default)
            "prompt": prompt,
            "mode": options.mode,
            "max_turns": options.max_turns,
            "images": ops.to_wire(options.images),
            "typed": options.typed,
            "mentions": options.mentions,
        }
        self._running, self._cancelled = True, False
        ended = False
        try:
            async with self.client.stream("POST", f"/threads/{self.thread_id}/runs", json=body) as resp:
                if resp.status_code != 200:
                    await resp.aread()
                    raise self._error(resp)
                async for event in self._events(resp, options):
                    ended = ended or isinstance(event, ev.TurnEnded)
                    if not (self._cancelled and isinstance(event, ev.STREAMED_TEXT)):
                        yield event
        except AugerError:
            raise
        except Exception as exc:  # the connection broke: end the turn like the core would
            log.warning("run stream failed", exc_info=True)
            if not ended:
                yield ev.Error(
                    f"Lost the connection to the auger server at {self.url}: {exc or type(exc).__name__}.",
                    "remote",
                )
                yield ev.TurnEnded("error", self.thread_id)
                ended = True
        finally:
            self._ended()
        if not ended:
            yield ev.Error("The server closed the stream before the turn ended.", "remote")
            yield ev.TurnEnded("error", self.thread_id)

    async def _events(self, resp: httpx.Response, options: TurnOptions) -> AsyncIterator[ev.Event]:
        async for data in sse_data(resp.aiter_lines()):
            try:
                event = ev.event_from_dict(json.loads(data))
            except (KeyError, TypeError, ValueError):
                log.warning("skipping an event this client does not know: %.200s", data)
                continue
            if isinstance(event, ev.Usage) and event.parent_id is None and event.context_tokens:
                self.context_tokens = event.context_tokens
            elif isinstance(event, ev.TurnStarted) and event.model:
                self.model_spec = event.model
            elif isinstance(event, ev.ApprovalRequested):
                event = self._awaited(event)  # `event.respond(...)` posts the decision
                if options.approval is not None:
                    await self._answered(event, options.approval(event, options.mode))
                    continue
            elif isinstance(event, ev.InputRequested):
                if options.approval is not None or not options.forms:  # nobody to fill in the form
                    log.info("declined the form of MCP server %s: no one to ask", event.server)
                    await self.resolve_input(event.request_id, ev.InputAnswer("decline"))
                    continue
                self._inputs[event.request_id] = event
            yield event

    async def _answered(self, request: ev.ApprovalRequested, decision: ev.ApprovalDecision) -> None:
        """Post the decision to the server (the run waits for it there)."""
        self._pending.pop(request.request_id, None)
        answer = ops.Approval(
            self.thread_id,
            request.request_id,
            decision.kind,
            decision.message,
            decision.rule,
            decision.persist,
            decision.mode,
        )
        await self.call(ops.RESOLVE_APPROVAL, answer)


async def sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The `data:` payloads of a server-sent event stream (comments and other fields skipped)."""
    buf: list[str] = []
    async for line in lines:
        if not line:
            if buf:
                yield "\n".join(buf)
                buf.clear()
        elif line.startswith("data:"):
            buf.append(line[5:].removeprefix(" "))
    if buf:
        yield "\n".join(buf)
