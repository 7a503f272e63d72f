"""RemoteSession: the Session port over HTTP, against `auger serve` (`auger --connect URL`).

It has the in-process Session's interface — `send(prompt)` yields the same IR events (rebuilt
with `event_from_dict`), approvals through the event's future or `resolve_approval`, `cancel()`,
`set_model()`, `set_mode()`, `history()`, `open_thread()`, `thread_id`/`model_spec`/`mode`/
`context_tokens` — so a front end cannot tell them apart. `set_model`/`set_mode` are synchronous
like Session's: they apply to the next `send`, which carries them to the server.

Also: `list_threads()`, `delete_thread()`, and `threads` (a RemoteThreadStore) for a thread picker.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.context import MODES, AugerContext
from auger.errors import AugerError, ThreadError, UsageError
from auger.remote_threads import RemoteMcp, RemoteThreadStore

if TYPE_CHECKING:
    import httpx

    from auger.core.session import ApprovalPolicy
    from auger.settings import Settings

log = logging.getLogger("auger.remote")
TOKEN_ENV = "AUGER_SERVE_TOKEN"


class RemoteError(AugerError):
    """The auger server cannot be reached, refused the token, or answered something unexpected."""

    exit_code = 1


class RemoteSession:
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        url: str,
        settings: Settings | None = None,
        approval_policy: ApprovalPolicy | None = None,
    ) -> None:
        self.client = client
        self.url = url
        self.settings = settings
        self.approval_policy = approval_policy
        self.thread_id = ""
        self.model_spec: str | None = None
        self.mode = "manual"
        self.context_tokens = 0
        self.always_allow: set[str] = set()
        self._changes: dict[str, str] = {}  # model/mode for the next run
        self._pending: dict[str, ev.ApprovalRequested] = {}
        self._running = False
        self._cancel_requested = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self.threads: RemoteThreadStore | None = None  # the thread picker's store, over HTTP
        self.mcp: RemoteMcp | None = None  # the server's MCP status, for /mcp

    @classmethod
    async def connect(
        cls,
        url: str,
        token: str | None,
        *,
        thread_id: str | None = None,
        settings: Settings | None = None,
        approval_policy: ApprovalPolicy | None = None,
    ) -> RemoteSession:
        """Check the server and the token, then open `thread_id` (None: a new thread)."""
        import httpx

        url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        client = httpx.AsyncClient(base_url=url, headers=headers, timeout=httpx.Timeout(30.0, read=120.0))
        session = cls(client, url=url, settings=settings, approval_policy=approval_policy)
        session.threads = RemoteThreadStore(url, headers, client)
        session.mcp = RemoteMcp(session.threads)
        try:
            info = await session._json("GET", "/version")
            session.model_spec, session.mode = info.get("model"), info.get("mode") or "manual"
            await session.open_thread(thread_id)
        except BaseException:
            await session.aclose()
            raise
        return session

    # -- controls --------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._running

    def set_model(self, spec: str) -> None:
        if not spec.strip():
            raise UsageError("No model given.", hint="Use PROVIDER:MODEL.")
        self.model_spec = self._changes["model"] = spec.strip()

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise UsageError(f"Unknown approval mode {mode!r}.", hint=f"Use one of: {', '.join(MODES)}.")
        self.mode = self._changes["mode"] = mode

    def cancel(self) -> None:
        """Ask the server to stop the running turn; the stream then ends with `cancelled`."""
        for request in list(self._pending.values()):
            request.respond(ev.ApprovalDecision("reject", "Cancelled by the user."))
        if self._running:
            self._cancel_requested = True  # what the server sent before it stopped is not shown
            self._spawn(self._json("POST", f"/threads/{self.thread_id}/cancel"))

    async def resolve_approval(self, request_id: str, decision: ev.ApprovalDecision) -> None:
        request = self._pending.pop(request_id, None)
        if request is None:
            raise UsageError(f"No pending approval {request_id!r}.")
        if request.future is not None and not request.future.done():
            request.future.set_result(decision)
        await self._answer(request, decision)

    def context(self) -> AugerContext:
        return AugerContext(
            model_spec=self.model_spec,
            mode=self.mode,
            always_allow=frozenset(self.always_allow),
            thread_id=self.thread_id,
        )

    # -- threads ---------------------------------------------------------------------------
    async def open_thread(self, thread_id: str | None) -> None:
        """Switch to `thread_id` (None: a new thread on the server); restores model and tokens."""
        if thread_id is None:
            body: dict[str, Any] = {k: v for k, v in (("model", self.model_spec), ("mode", self.mode)) if v}
            info = await self._json("POST", "/threads", json=body)
        else:
            info = await self._json("GET", f"/threads/{thread_id}")
        self.thread_id = info["id"]
        self.model_spec = info.get("model") or self.model_spec
        self.mode = info.get("mode") or self.mode
        self.context_tokens = int(info.get("context_tokens") or 0)
        self.always_allow.clear()
        self._changes.clear()

    def tool_names(self) -> list[str]:
        """The tools the server's agent can call (a short blocking request, like the store's)."""
        assert self.threads is not None
        return list(self.threads.call("GET", "/tools")["tools"])

    async def history(self) -> list[Any]:
        from langchain_core.messages import messages_from_dict

        data = await self._json("GET", f"/threads/{self.thread_id}/messages")
        return list(messages_from_dict(data["messages"]))

    async def compact(self, instructions: str | None = None) -> Any:
        """The server compacts the thread; a `Compaction`, or None when there was nothing to."""
        from auger.core.compact import Compaction

        body = {"instructions": instructions} if instructions else {}
        data = await self._json("POST", f"/threads/{self.thread_id}/compact", json=body)
        if not data.get("compacted"):
            return None
        self.context_tokens = int(data["tokens_after"])
        return Compaction(
            int(data["summarized"]), str(data["summary"]), int(data["tokens_before"]), self.context_tokens
        )

    async def list_threads(self, limit: int = 100) -> list[dict[str, Any]]:
        return list((await self._json("GET", "/threads", params={"limit": limit}))["threads"])

    async def delete_thread(self, thread_id: str) -> None:
        await self._json("DELETE", f"/threads/{thread_id}")

    async def aclose(self) -> None:
        if self._running:
            self.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        if self.threads is not None:
            self.threads.close()
        await self.client.aclose()

    # -- a turn ----------------------------------------------------------------------------
    async def send(self, prompt: str) -> AsyncIterator[ev.Event]:
        if self._running:
            raise UsageError("A turn is already running on this session.")
        body = {"prompt": prompt, **self._changes}
        self._running = True
        self._cancel_requested = False
        ended = False
        try:
            async with self.client.stream("POST", f"/threads/{self.thread_id}/runs", json=body) as resp:
                if resp.status_code != 200:
                    await resp.aread()
                    raise self._error(resp)
                self._changes.clear()
                async for event in self._events(resp):
                    ended = ended or isinstance(event, ev.TurnEnded)
                    if not (self._cancel_requested and isinstance(event, ev.STREAMED_TEXT)):
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
            self._running = False
            self._pending.clear()
        if not ended:
            yield ev.Error("The server closed the stream before the turn ended.", "remote")
            yield ev.TurnEnded("error", self.thread_id)

    async def _events(self, resp: httpx.Response) -> AsyncIterator[ev.Event]:
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
                event = self._wire_approval(event)
                if self.approval_policy is not None:
                    await self._answer(event, self.approval_policy(event, self.context()))
                    continue
            yield event

    def _wire_approval(self, event: ev.ApprovalRequested) -> ev.ApprovalRequested:
        """Give the event a future: `event.respond(...)` posts the decision to the server."""
        future: asyncio.Future[ev.ApprovalDecision] = asyncio.get_running_loop().create_future()
        event = replace(event, future=future)
        self._pending[event.request_id] = event

        def decided(fut: asyncio.Future[ev.ApprovalDecision]) -> None:
            if self._pending.pop(event.request_id, None) is not None and not fut.cancelled():
                self._spawn(self._answer(event, fut.result()))

        future.add_done_callback(decided)
        return event

    async def _answer(self, request: ev.ApprovalRequested, decision: ev.ApprovalDecision) -> None:
        self._pending.pop(request.request_id, None)
        if decision.kind == "approve_always":  # mirrors the grant the server's session records
            self.always_allow.add(decision.rule or getattr(request, "suggested_rule", "") or request.name)
        body: dict[str, Any] = {"request_id": request.request_id, "decision": decision.kind}
        for key in ("message", "rule", "persist"):
            if getattr(decision, key, None):
                body[key] = getattr(decision, key)
        await self._json("POST", f"/threads/{self.thread_id}/approvals", json=body)

    # -- HTTP ------------------------------------------------------------------------------
    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
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
        return dict(resp.json())

    def _error(self, resp: httpx.Response) -> AugerError:
        try:
            message = str(resp.json().get("error") or resp.text)
        except ValueError:
            message = resp.text[:200] or resp.reason_phrase
        if resp.status_code == 401:
            return RemoteError(
                f"The auger server at {self.url} refused the token: {message}",
                hint=f"Pass the token `auger serve` printed with --token or {TOKEN_ENV}.",
            )
        if resp.status_code == 404 and "thread" in message.lower():
            return ThreadError(message)
        if resp.status_code in (400, 409, 413):
            return UsageError(message)
        return RemoteError(f"The auger server answered {resp.status_code}: {message}")

    def _spawn(self, coro: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await coro
            except Exception:
                log.warning("background request to the server failed", exc_info=True)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


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


def session_factory(
    url: str, token: str | None = None, *, approval_policy: ApprovalPolicy | None = None
) -> Callable[[Settings, str | None], Awaitable[RemoteSession]]:
    """The `--connect` session factory for `make_app(settings, factory)`:
    `await factory(settings, thread_id)` -> a RemoteSession on that thread (None: a new one)."""
    import os

    token = token or os.environ.get(TOKEN_ENV)

    async def create(settings: Settings, thread_id: str | None) -> RemoteSession:
        session = await RemoteSession.connect(
            url, token, thread_id=thread_id, settings=settings, approval_policy=approval_policy
        )
        apply_flags(session, settings)
        return session

    return create


def apply_flags(session: RemoteSession, settings: Settings) -> None:
    """`--mode`/`--model` (or AUGER_MODE/AUGER_MODEL) given here win over the server's defaults;
    a mode or model merely configured on this machine does not (the server's config decides)."""
    if settings.sources.get("mode", "default").startswith(("flag", "env")):
        session.set_mode(settings.mode)
    if settings.model and settings.sources.get("model", "").startswith(("flag", "env")):
        session.set_model(settings.model)


async def run_remote_headless(
    settings: Settings,
    prompt: str,
    url: str,
    token: str | None,
    *,
    output_format: str = "text",
    resume: str | None = None,
    started: float | None = None,
) -> int:
    """`auger --connect URL -n TASK`: one headless turn on the server (approvals by --mode);
    `--timeout` counts from `started` (the process start)."""
    import sys

    from auger.core.session import headless_policy
    from auger.headless import _Printer, run_turn

    session = await session_factory(url, token, approval_policy=headless_policy)(settings, resume)
    try:
        printer = _Printer(output_format, sys.stdout, sys.stderr)
        return await run_turn(session, prompt, printer, settings.timeout, started)  # type: ignore[arg-type]
    finally:
        await session.aclose()
