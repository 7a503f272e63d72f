"""The ASGI app: bearer-token auth, the Vercel chat stream, and native endpoints over the IR.

`create_app(pool, token=...)` is a factory with its dependencies injected; nothing runs at
import time. Every client mistake answers `{"error": "..."}` with a 4xx status (see http.py).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from auger import __version__
from auger.core import events as ev
from auger.errors import ProviderError, UsageError
from auger.server import vercel
from auger.server.http import MAX_BODY, ApiError, check_thread_id, error_response, field, read_json
from auger.server.pool import EPHEMERAL_PREFIX, Lease, ThreadPool, configure
from auger.server.sse import frame, sse_response

log = logging.getLogger("auger.server")
PROTOCOL = 1
DECISIONS = ("approve", "reject", "approve_always")
FLAGS = {"0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}
OPEN_PATHS = {("GET", "/health"), ("HEAD", "/health")}


class BearerAuth:
    """Every request needs `Authorization: Bearer <token>` except `GET /health`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["method"], scope["path"]) in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        scheme, _, given = header.partition(b" ")
        if not header:
            problem = "Missing token: send the header 'Authorization: Bearer <token>'."
        elif scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self._token):
            problem = "Invalid token."
        else:
            await self.app(scope, receive, send)
            return
        response = error_response(401, problem, {"WWW-Authenticate": 'Bearer realm="auger"'})
        await response(scope, receive, send)


class Api:
    def __init__(self, pool: ThreadPool, max_body: int) -> None:
        self.pool = pool
        self.max_body = max_body
        self._cleanup: set[asyncio.Task[Any]] = set()

    # -- service ----------------------------------------------------------------------------
    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def version(self, request: Request) -> Response:
        return JSONResponse(
            {
                "version": __version__,
                "protocol": PROTOCOL,
                "mode": self.pool.mode,
                "model": self.pool.settings.model,
            }
        )

    async def tools(self, request: Request) -> Response:
        from auger.core.agent import agent_tool_names

        base = self.pool.base
        mcp = base.mcp.status() if base.mcp is not None else None
        return JSONResponse({"tools": agent_tool_names(base), "mcp": mcp})

    async def openapi(self, request: Request) -> Response:
        from auger.server.openapi import spec

        return JSONResponse(spec(__version__))

    # -- threads ----------------------------------------------------------------------------
    async def list_threads(self, request: Request) -> Response:
        query = request.query_params
        raw = query.get("limit", "100")
        if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
            raise ApiError(
                400, f"Query parameter 'limit' must be a whole number from 1 to 10000, not {raw!r}."
            )
        flag = query.get("all", "0").lower()
        if flag not in FLAGS:
            raise ApiError(400, f"Query parameter 'all' must be true or false, not {flag!r}.")
        threads = await self.pool.list_threads(
            limit=int(raw), all_projects=FLAGS[flag], search=query.get("search") or None
        )
        return JSONResponse({"threads": threads})

    async def create_thread(self, request: Request) -> Response:
        body = await read_json(request, self.max_body, optional=True)
        thread_id = field(body, "thread_id", str)
        session = await self.pool.create(
            check_thread_id(thread_id) if thread_id else None,
            model=field(body, "model", str),
            mode=field(body, "mode", str),
        )
        return JSONResponse(await self.pool.describe(session.thread_id), status_code=201)

    async def get_thread(self, request: Request) -> Response:
        session = await self.pool.get(_thread_id(request))
        return JSONResponse(await self.pool.describe(session.thread_id))

    async def update_thread(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        title = field(body, "title", str, required=True)
        thread_id = await self.pool.rename(_thread_id(request), title)
        return JSONResponse(await self.pool.describe(thread_id))

    async def delete_thread(self, request: Request) -> Response:
        await self.pool.delete(_thread_id(request))
        return JSONResponse({"deleted": True})

    async def fork_thread(self, request: Request) -> Response:
        body = await read_json(request, self.max_body, optional=True)
        at = field(body, "at", int)
        if at is not None and at < 1:
            raise ApiError(400, f"Field 'at' must be a user turn number from 1, not {at}.")
        new_id = await self.pool.fork(_thread_id(request), at)
        return JSONResponse(await self.pool.describe(new_id), status_code=201)

    async def messages(self, request: Request) -> Response:
        from langchain_core.messages import messages_to_dict

        session = await self.pool.get(_thread_id(request))
        return JSONResponse({"messages": messages_to_dict(await session.history())})

    async def set_model(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        session = await self.pool.get(_thread_id(request))
        configure(session, model=field(body, "model", str, required=True))
        return JSONResponse(await self.pool.describe(session.thread_id))

    async def set_mode(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        session = await self.pool.get(_thread_id(request))
        configure(session, mode=field(body, "mode", str, required=True))
        return JSONResponse(await self.pool.describe(session.thread_id))

    async def compact(self, request: Request) -> Response:
        """Summarise the thread so far (optional `instructions`); 409 while a run holds it."""
        body = await read_json(request, self.max_body, optional=True)
        instructions = field(body, "instructions", str)
        session = await self.pool.get(_thread_id(request))
        lease = await self.pool.lease(session)
        try:
            done = await session.compact(instructions)
        except ProviderError as exc:
            raise ApiError(502, str(exc)) from exc
        finally:
            lease.release()
        if done is None:
            return JSONResponse({"compacted": False, "summarized": 0})
        return JSONResponse(
            {
                "compacted": True,
                "summarized": done.summarized,
                "summary": done.summary,
                "tokens_before": done.tokens_before,
                "tokens_after": done.tokens_after,
            }
        )

    # -- runs -------------------------------------------------------------------------------
    async def run(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        prompt = field(body, "prompt", str, required=True)
        if not prompt.strip():
            raise ApiError(400, "Field 'prompt' is empty.")
        session = await self.pool.get(_thread_id(request))
        model, mode = field(body, "model", str), field(body, "mode", str)
        lease = await self.pool.lease(session)
        try:
            configure(session, model=model, mode=mode)
        except ApiError:
            lease.release()
            raise
        return sse_response(self._ir_frames(lease, prompt), on_close=lease.release)

    async def _ir_frames(self, lease: Lease, prompt: str) -> AsyncIterator[bytes]:
        session = lease.session
        try:
            events = session.send(prompt) if not lease.cancelled else _cancelled(session.thread_id)
            async for event in events:
                if isinstance(event, ev.TurnEnded):
                    lease.release()  # the turn is over: the next run may start at once
                yield frame(event.to_dict())
        finally:
            lease.release()

    async def approve(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        request_id = field(body, "request_id", str, required=True)
        decision = field(body, "decision", str, required=True)
        if decision not in DECISIONS:
            raise ApiError(400, f"Field 'decision' must be one of {', '.join(DECISIONS)}, not {decision!r}.")
        persist = field(body, "persist", str)
        if persist not in (None, "project", "user"):
            raise ApiError(400, f"Field 'persist' must be 'project' or 'user', not {persist!r}.")
        answer = ev.ApprovalDecision(
            decision,  # type: ignore[arg-type]
            field(body, "message", str),
            rule=field(body, "rule", str),
            persist=persist,  # type: ignore[arg-type]
        )
        session = await self.pool.get(_thread_id(request))
        try:
            await session.resolve_approval(request_id, answer)
        except UsageError:
            other = await self.pool.running_elsewhere(session.thread_id)
            if other is not None:  # approvals are sticky: the replica running the turn holds them
                raise ApiError(
                    409,
                    f"Thread {session.thread_id!r} is running in another auger ({other.describe()});"
                    " answer its approval there (the server that started the run).",
                ) from None
            raise ApiError(
                404, f"No pending approval {request_id!r} on thread {session.thread_id!r}."
            ) from None
        return JSONResponse({"ok": True})

    async def cancel(self, request: Request) -> Response:
        session = await self.pool.get(_thread_id(request))
        return JSONResponse({"cancelled": self.pool.cancel(session)})

    # -- the Vercel AI SDK chat stream ---------------------------------------------------------
    async def chat_stream(self, request: Request) -> Response:
        chat = vercel.parse_chat(await read_json(request, self.max_body))
        if chat.thread_id:
            session = await self.pool.get_or_create(chat.thread_id)
        else:
            session = self.pool.ephemeral()
        lease = await self.pool.lease(session, on_release=self._restore(session))
        try:
            configure(session, model=chat.model)
        except ApiError:
            lease.release()
            raise
        from auger.core.session import headless_policy

        session.approval_policy = headless_policy  # nobody to ask: the server's --mode decides
        session.mode = self.pool.mode
        headers = vercel.HEADERS
        return sse_response(self._ui_frames(lease, chat), headers=headers, on_close=lease.release)

    def _restore(self, session: Any) -> Any:
        policy, mode, ephemeral = session.approval_policy, session.mode, chat_is_ephemeral(session)

        def restore() -> None:
            session.approval_policy, session.mode = policy, mode
            if ephemeral:
                task = asyncio.get_running_loop().create_task(self.pool.discard(session))
                self._cleanup.add(task)
                task.add_done_callback(self._cleanup.discard)

        return restore

    async def _ui_frames(self, lease: Lease, chat: vercel.ChatRequest) -> AsyncIterator[bytes]:
        session = lease.session
        ui = vercel.UIStream(session.thread_id, stateless=chat_is_ephemeral(session))
        reason = "error"
        try:
            for part in ui.start():
                yield frame(part)
            if chat.history and chat_is_ephemeral(session):
                await self.pool.seed(session, vercel.to_langchain(chat.history))
            events = session.send(chat.prompt) if not lease.cancelled else _cancelled(session.thread_id)
            async for event in events:
                if isinstance(event, ev.TurnEnded):
                    reason = event.reason
                for part in ui.feed(event):
                    yield frame(part)
        except Exception as exc:  # a failure before the turn could start: still a well-formed stream
            log.exception("chat stream failed")
            yield frame({"type": "error", "errorText": f"{type(exc).__name__}: {exc}"})
        finally:
            lease.release()
        for part in ui.finish(reason):
            yield frame(part)
        yield frame(vercel.DONE)


async def _cancelled(thread_id: str) -> AsyncIterator[ev.Event]:
    yield ev.TurnEnded("cancelled", thread_id)


def chat_is_ephemeral(session: Any) -> bool:
    return str(session.thread_id).startswith(EPHEMERAL_PREFIX)


def _thread_id(request: Request) -> str:
    return check_thread_id(request.path_params["thread_id"])


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error_response(404, f"No endpoint {request.method} {request.url.path}; see GET /openapi.json.")
    if exc.status_code == 405:
        return error_response(405, f"Method {request.method} is not allowed on {request.url.path}.")
    return error_response(exc.status_code, str(exc.detail))


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, f"Internal error: {type(exc).__name__}; details are in the server log.")


def create_app(pool: ThreadPool, *, token: str, max_body: int = MAX_BODY) -> ASGIApp:
    """The server app over `pool`; every request but `GET /health` needs `token`."""
    api = Api(pool, max_body)
    t = "/threads/{thread_id}"
    routes = [
        Route("/health", api.health, methods=["GET"]),
        Route("/version", api.version, methods=["GET"]),
        Route("/openapi.json", api.openapi, methods=["GET"]),
        Route("/tools", api.tools, methods=["GET"]),
        Route("/chat/stream", api.chat_stream, methods=["POST"]),
        Route("/threads", api.list_threads, methods=["GET"]),
        Route("/threads", api.create_thread, methods=["POST"]),
        Route(t, api.get_thread, methods=["GET"]),
        Route(t, api.update_thread, methods=["PATCH"]),
        Route(t, api.delete_thread, methods=["DELETE"]),
        Route(f"{t}/fork", api.fork_thread, methods=["POST"]),
        Route(f"{t}/messages", api.messages, methods=["GET"]),
        Route(f"{t}/runs", api.run, methods=["POST"]),
        Route(f"{t}/approvals", api.approve, methods=["POST"]),
        Route(f"{t}/cancel", api.cancel, methods=["POST"]),
        Route(f"{t}/model", api.set_model, methods=["POST"]),
        Route(f"{t}/mode", api.set_mode, methods=["POST"]),
        Route(f"{t}/compact", api.compact, methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: _api_error, HTTPException: _http_error, Exception: _internal_error},
    )
    app.state.api = api
    return BearerAuth(app, token)
