"""The server's routes for the operations of `auger.core.operations`, derived from the table.

One generic handler per operation: the request dataclass is built from the path parameters, the
query string (GET, DELETE) or the JSON body, with a 400 naming the field that does not fit; a
`thread_id` is resolved (an id or a unique prefix; 404 unknown); the Session that runs it is the
pool's base session, the thread's own (`scope="own"`) or one on a new thread (`"new"`); `idle`
operations reserve the thread like a run (409 while it is busy). The result is serialised with
`to_wire`, thread objects carrying the server's live state. Core errors map to statuses by kind
(`STATUS`), the error's class name goes along as `kind` so a client can raise the same error.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from auger.core import operations as ops
from auger.core.threads.lease import ThreadBusyError
from auger.errors import AugerError, BusyError, NotFoundError, ProviderError, ThreadError
from auger.server.http import ApiError, check_thread_id, read_json

if TYPE_CHECKING:
    from auger.core.session.session import Session
    from auger.server.pool import ThreadPool

FLAGS = {"0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}


def status_of(exc: AugerError) -> int:
    if isinstance(exc, BusyError | ThreadBusyError):
        return 409
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ThreadError):
        return 400 if "ambiguous" in exc.message else 404
    if isinstance(exc, ProviderError):
        return 502
    return 400


def _query(cls: type[Any], request: Request) -> dict[str, Any]:
    """Query parameters converted by the request field's type (int, bool, str)."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for name, raw in request.query_params.items():
        hint = hints.get(name)
        if hint is None:
            continue
        kinds = {a for a in (typing.get_args(hint) or (hint,)) if a is not type(None)}
        if int in kinds:
            if not raw.isdigit():
                raise ApiError(400, f"Query parameter {name!r} must be a whole number, not {raw!r}.")
            values[name] = int(raw)
        elif bool in kinds:
            if raw.lower() not in FLAGS:
                raise ApiError(400, f"Query parameter {name!r} must be true or false, not {raw!r}.")
            values[name] = FLAGS[raw.lower()]
        else:
            values[name] = raw
    return values


async def parse(op: ops.Operation[Any, Any], request: Request, max_body: int) -> Any:
    if op.method in ("POST", "PATCH") and op.request is not ops.NoArgs:
        values = await read_json(request, max_body, optional=True)
    else:
        values = _query(op.request, request)
    for name in op.path_params:
        raw = request.path_params[name]
        values[name] = check_thread_id(raw) if name == "thread_id" else raw
    try:
        return ops.from_wire(op.request, values)
    except ops.WireError as exc:
        message = str(exc)
        raise ApiError(400, message[:1].upper() + message[1:] + ".") from None


async def _session(pool: ThreadPool, op: ops.Operation[Any, Any], req: Any) -> Session:
    if op.scope == "new":
        return await pool.create(req.thread_id, getattr(req, "mode", None))
    if op.scope == "own":
        return await pool.get(req.thread_id)
    return pool.base


def handler(
    op: ops.Operation[Any, Any], pool: ThreadPool, max_body: int
) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        req = await parse(op, request, max_body)
        if "thread_id" in op.path_params:  # an id or a unique prefix of one
            req = dataclasses.replace(req, thread_id=await pool.resolve(req.thread_id))
        session = await _session(pool, op, req)
        lease = await pool.lease(session) if op.idle else None
        try:
            result = await session.call(op, req)
        finally:
            if lease is not None:
                lease.release()
        if op.ends_thread:
            pool.forget(req.thread_id)
        return JSONResponse(ops.to_wire(pool.live(result)), status_code=op.status)

    return handle


def operation_routes(pool: ThreadPool, max_body: int) -> list[Route]:
    return [Route(op.path, handler(op, pool, max_body), methods=[op.method]) for op in ops.OPERATIONS]
