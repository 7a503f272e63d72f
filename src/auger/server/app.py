"""The ASGI app: bearer-token auth, the Vercel chat stream, and native endpoints over the IR.

`create_app(pool, token=...)` is a factory with its dependencies injected; nothing runs at
import time. Every client mistake answers `{"error": "..."}` with a 4xx status (see http.py).
"""

from __future__ import annotations

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
from auger.core.operations import to_wire
from auger.core.port import MODES, TurnOptions, serve_policy
from auger.core.session.calls import live
from auger.errors import AugerError
from auger.server import vercel
from auger.server.http import (
    MAX_BODY,
    ApiError,
    check_thread_id,
    error_response,
    field,
    images_field,
    read_json,
)
from auger.server.pool import EPHEMERAL_PREFIX, Lease, ThreadPool
from auger.server.routes import operation_routes, status_of
from auger.server.sse import frame, sse_response

log = logging.getLogger("auger.server")
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
    """The routes written by hand: the streaming run protocol (runs, cancel), the thread's default
    mode (server state), the Vercel chat stream, health and the OpenAPI document. Everything else
    is an operation of `auger.core.operations`, routed by `auger.server.routes`."""

    def __init__(self, pool: ThreadPool, max_body: int) -> None:
        self.pool = pool
        self.max_body = max_body

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def openapi(self, request: Request) -> Response:
        from auger.server.openapi import spec

        return JSONResponse(spec(__version__))

    async def set_mode(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        session = await self.pool.get(_thread_id(request))
        self.pool.set_mode(session.thread_id, field(body, "mode", str, required=True))
        return JSONResponse(to_wire(self.pool.live(live(session, session.thread_id))))

    # -- runs -------------------------------------------------------------------------------
    async def run(self, request: Request) -> Response:
        body = await read_json(request, self.max_body)
        prompt = field(body, "prompt", str, required=True)
        if not prompt.strip():
            raise ApiError(400, "Field 'prompt' is empty.")
        mode = field(body, "mode", str)
        if mode is not None and mode not in MODES:
            raise ApiError(400, f"Unknown mode {mode!r}; use one of: {', '.join(MODES)}.")
        max_turns, typed = field(body, "max_turns", int), field(body, "typed", str)
        model, images, mentions = field(body, "model", str), images_field(body), field(body, "mentions", bool)
        session = await self.pool.get(_thread_id(request))
        lease = await self.pool.lease(session, model=model)
        mode = mode or self.pool.mode_of(session.thread_id)
        options = TurnOptions(mode, max_turns=max_turns, images=images, typed=typed, mentions=bool(mentions))
        return sse_response(self._ir_frames(lease, prompt, options), on_close=lease.release)

    async def _ir_frames(self, lease: Lease, prompt: str, options: TurnOptions) -> AsyncIterator[bytes]:
        session = lease.session
        try:
            events = session.send(prompt, options) if not lease.cancelled else _cancelled(session.thread_id)
            async for event in events:
                if isinstance(event, ev.ModeChanged):  # a plan accepted: the thread's runs go on in it
                    self.pool.set_mode(session.thread_id, event.mode)
                if isinstance(event, ev.TurnEnded):
                    lease.release()  # the turn is over: the next run may start at once
                yield frame(event.to_dict())
        finally:
            lease.release()

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
        lease = await self.pool.lease(session, model=chat.model)
        options = TurnOptions(self.pool.mode, approval=serve_policy)  # nobody to ask: --mode decides
        return sse_response(
            self._ui_frames(lease, chat, options), headers=vercel.HEADERS, on_close=lease.release
        )

    async def _ui_frames(
        self, lease: Lease, chat: vercel.ChatRequest, options: TurnOptions
    ) -> AsyncIterator[bytes]:
        session = lease.session
        ui = vercel.UIStream(session.thread_id, stateless=chat_is_ephemeral(session))
        reason = "error"
        try:
            for part in ui.start():
                yield frame(part)
            if chat.history and chat_is_ephemeral(session):
                await self.pool.seed(session, vercel.to_langchain(chat.history))
            events = (
                session.send(chat.prompt, options) if not lease.cancelled else _cancelled(session.thread_id)
            )
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


async def _auger_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AugerError)
    return JSONResponse({"error": str(exc), "kind": type(exc).__name__}, status_code=status_of(exc))


def create_app(pool: ThreadPool, *, token: str, max_body: int = MAX_BODY) -> ASGIApp:
    """The server app over `pool`; every request but `GET /health` needs `token`."""
    api = Api(pool, max_body)
    t = "/threads/{thread_id}"
    routes = [
        Route("/health", api.health, methods=["GET"]),
        Route("/openapi.json", api.openapi, methods=["GET"]),
        Route("/chat/stream", api.chat_stream, methods=["POST"]),
        Route(f"{t}/runs", api.run, methods=["POST"]),
        Route(f"{t}/cancel", api.cancel, methods=["POST"]),
        Route(f"{t}/mode", api.set_mode, methods=["POST"]),
        *operation_routes(pool, max_body),
    ]
    handlers = {
        AugerError: _auger_error,
        ApiError: _api_error,
        HTTPException: _http_error,
        Exception: _internal_error,
    }
    app = Starlette(routes=routes, exception_handlers=handlers)  # type: ignore[arg-type]
    return BearerAuth(app, token)
