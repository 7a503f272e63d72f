"""The OpenAPI 3.1 description of `auger serve` (`GET /openapi.json`): the operations of
`auger.core.operations` with schemas generated from their request and result dataclasses, plus
the routes written by hand in `auger.server.app` (health, runs, cancel, mode, the chat stream)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from auger.core import events as ev
from auger.core import operations as ops
from auger.core.port import MODES
from auger.core.threads.store import LiveThread

SCALARS = {str: "string", int: "integer", bool: "boolean", float: "number"}
MODE = {"enum": list(MODES)}
_ERROR = {
    "description": "What is wrong",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


class Schemas:
    """JSON schemas of dataclasses, collected as components."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {
            "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {"error": {"type": "string"}, "kind": {"type": "string"}},
            },
            "Event": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"enum": sorted(ev.EVENT_TYPES)}},
            },
        }

    def of(self, hint: Any) -> dict[str, Any]:
        origin = typing.get_origin(hint)
        if origin is not None:
            return self._generic(origin, typing.get_args(hint))
        if hint in SCALARS:
            return {"type": SCALARS[hint]}
        if isinstance(hint, type) and issubclass(hint, ev.Event):
            return _ref("Event")
        if dataclasses.is_dataclass(hint):
            return self.dataclass(typing.cast(type, hint))
        return {"type": "object"} if hint is dict else {}

    def _generic(self, origin: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        if origin is typing.Literal:
            return {"enum": list(args)}
        if origin is list:
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin is dict:
            return {"type": "object"}
        inner = [self.of(a) for a in args if a is not type(None)]  # a union
        return {"anyOf": [*inner, {"type": "null"}]} if type(None) in args else {"anyOf": inner}

    def dataclass(self, cls: type, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        name = "Thread" if cls is LiveThread else cls.__name__
        if name not in self.components:
            self.components[name] = {}  # a placeholder while its fields are described
            hints = typing.get_type_hints(cls)
            fields = [f for f in dataclasses.fields(cls) if f.name not in skip]
            props = {f.name: self.of(hints[f.name]) for f in fields}
            if cls is LiveThread:
                props["project"] = props.pop("root")
                for key in ("created_at", "updated_at", "snippet_at"):
                    props[key] = {"type": ["string", "null"], "format": "date-time"}
            required = [
                f.name
                for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            ]
            self.components[name] = {"type": "object", "required": required, "properties": props}
        return _ref(name)


def _operation(op: ops.Operation[Any, Any], schemas: Schemas) -> dict[str, Any]:
    params = [
        {"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in op.path_params
    ]
    out: dict[str, Any] = {"summary": op.summary, "operationId": op.name}
    fields = [f for f in dataclasses.fields(op.request) if f.name not in op.path_params]
    if fields and op.method in ("GET", "DELETE"):
        hints = typing.get_type_hints(op.request)
        params += [{"name": f.name, "in": "query", "schema": schemas.of(hints[f.name])} for f in fields]
    elif fields:
        body = schemas.dataclass(op.request, skip=tuple(op.path_params))
        out["requestBody"] = {"required": False, "content": {"application/json": {"schema": body}}}
    if params:
        out["parameters"] = params
    ok = {"description": "OK", "content": {"application/json": {"schema": schemas.of(op.result)}}}
    errors = (400, 401, 404, 409) if op.scope != "any" or op.idle or op.path_params else (400, 401)
    out["responses"] = {str(op.status): ok, **{str(code): _ERROR for code in errors}}
    return out


def _route(
    summary: str, ok: dict[str, Any], *, body: dict[str, Any] | None = None, errors: tuple[int, ...] = ()
) -> Any:
    out: dict[str, Any] = {"summary": summary, "responses": {"200": ok, **{str(c): _ERROR for c in errors}}}
    if body is not None:
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return out


def _object(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": props}


_TID = [{"name": "thread_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_SSE = {"text/event-stream": {"schema": {"type": "string"}}}
S, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
IMAGES = {"type": "array", "items": _object(["mime_type"], mime_type=S, data=S, url=S)}
HAND_WRITTEN: dict[str, dict[str, Any]] = {
    "/health": {"get": {**_route("Liveness (no token needed)", {"description": "ok"}), "security": []}},
    "/openapi.json": {"get": _route("This description", {"description": "OK"}, errors=(401,))},
    "/threads/{thread_id}/runs": {
        "post": {
            **_route(
                "Run one turn; streams IR events as SSE (`data: {event}` frames, ending with turn_ended)",
                {"description": "SSE of IR events", "content": _SSE},
                body=_object(
                    ["prompt"],
                    prompt=S,
                    model=S,
                    mode=MODE,
                    max_turns=INT,
                    images=IMAGES,
                    typed=S,
                    mentions=BOOL,
                ),
                errors=(400, 401, 404, 409, 413),
            ),
            "parameters": _TID,
        }
    },
    "/threads/{thread_id}/cancel": {
        "post": {
            **_route(
                "Cancel the running turn (keeps what was done)",
                {"description": '`{"cancelled": bool}`'},
                errors=(401, 404),
            ),
            "parameters": _TID,
        }
    },
    "/threads/{thread_id}/mode": {
        "post": {
            **_route(
                "The thread's default approval mode, for runs that do not give one",
                {"description": "OK", "content": {"application/json": {"schema": _ref("Thread")}}},
                body=_object(["mode"], mode=MODE),
                errors=(400, 401, 404),
            ),
            "parameters": _TID,
        }
    },
    "/chat/stream": {
        "post": _route(
            "Vercel AI SDK UI-message stream (header x-vercel-ai-ui-message-stream: v1). Without thread_id "
            "the chat is stateless; with one it continues (or starts) that thread. Approvals follow the "
            "server's --mode.",
            {"description": "`data: {part}` frames, then `data: [DONE]`", "content": _SSE},
            body=_object(["messages"], messages={"type": "array"}, thread_id=S, model=S),
            errors=(400, 401, 409, 413),
        )
    },
}


def spec(version: str) -> dict[str, Any]:
    schemas = Schemas()
    paths: dict[str, dict[str, Any]] = {}
    for op in ops.OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, schemas)
    for path, methods in HAND_WRITTEN.items():
        paths.setdefault(path, {}).update(methods)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "auger serve",
            "version": version,
            "description": "The auger coding agent over HTTP. Every request except GET /health needs "
            '`Authorization: Bearer <token>`. Errors are JSON `{"error": "...", "kind": "..."}`.',
        },
        "components": {
            "schemas": schemas.components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": paths,
    }
