"""The OpenAPI 3.1 description of `auger serve`, served at `GET /openapi.json`."""

from __future__ import annotations

from typing import Any

_ERROR = {
    "description": "What is wrong",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}
_SSE_IR = {
    "description": "Server-sent events: one `data: {IR event}` frame per event, ending with `turn_ended`.",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}
_TID = [{"name": "thread_id", "in": "path", "required": True, "schema": {"type": "string"}}]


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


def _op(
    summary: str,
    ok: dict[str, Any],
    *,
    body: str | None = None,
    params: Any = None,
    errors: tuple[int, ...] = (400, 401, 404),
) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {"200": ok, **{str(c): _ERROR for c in errors}}}
    if body:
        op["requestBody"] = {"required": True, **_json(body)}
    if params:
        op["parameters"] = params
    return op


def _obj(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": props}


S = {"type": "string"}
SCHEMAS: dict[str, Any] = {
    "Error": _obj(["error"], error=S),
    "Thread": _obj(
        ["id"],
        id=S,
        model={"type": ["string", "null"]},
        mode={"type": ["string", "null"]},
        context_tokens={"type": ["integer", "null"]},
        busy={"type": "boolean"},
        created_at={"type": ["number", "null"]},
        updated_at={"type": ["number", "null"]},
    ),
    "NewThread": _obj([], thread_id=S, model=S, mode={"enum": ["manual", "auto-edit", "yolo"]}),
    "Run": _obj(["prompt"], prompt=S, model=S, mode={"enum": ["manual", "auto-edit", "yolo"]}),
    "Approval": _obj(
        ["request_id", "decision"],
        request_id=S,
        decision={"enum": ["approve", "reject", "approve_always"]},
        message=S,
        rule=S,
        persist={"enum": ["project", "user"]},
    ),
    "Model": _obj(["model"], model=S),
    "Mode": _obj(["mode"], mode={"enum": ["manual", "auto-edit", "yolo"]}),
    "Chat": _obj(
        ["messages"],
        messages={
            "type": "array",
            "items": _obj(
                ["role"], role={"enum": ["user", "assistant", "system"]}, parts={"type": "array"}, content={}
            ),
        },
        thread_id=S,
        model=S,
    ),
}


def spec(version: str) -> dict[str, Any]:
    t = "/threads/{thread_id}"
    ok = {"description": "OK", **_json("Thread")}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "auger serve",
            "version": version,
            "description": "The auger coding agent over HTTP. Every request except GET /health needs "
            '`Authorization: Bearer <token>`. Errors are JSON `{"error": "..."}`.',
        },
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/health": {
                "get": {**_op("Liveness (no token needed)", {"description": "ok"}, errors=()), "security": []}
            },
            "/version": {
                "get": _op(
                    "Server version, protocol, default model and mode", {"description": "OK"}, errors=(401,)
                )
            },
            "/openapi.json": {"get": _op("This description", {"description": "OK"}, errors=(401,))},
            "/tools": {
                "get": _op(
                    "Tools the agent can call, and MCP server status", {"description": "OK"}, errors=(401,)
                )
            },
            "/chat/stream": {
                "post": _op(
                    "Vercel AI SDK UI-message stream (header x-vercel-ai-ui-message-stream: v1). Without "
                    "thread_id the chat is stateless; with one it continues (or starts) that thread. "
                    "Approvals follow the server's --mode.",
                    {
                        "description": "`data: {part}` frames, then `data: [DONE]`",
                        "content": {"text/event-stream": {"schema": S}},
                    },
                    body="Chat",
                    errors=(400, 401, 409, 413),
                )
            },
            "/threads": {
                "get": _op(
                    "Threads, newest first (?limit=N)",
                    {
                        "description": "OK",
                        "content": {
                            "application/json": {
                                "schema": _obj(
                                    ["threads"],
                                    threads={
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/Thread"},
                                    },
                                )
                            }
                        },
                    },
                    errors=(400, 401),
                ),
                "post": {
                    **_op(
                        "Create a thread",
                        {"description": "unused"},
                        body="NewThread",
                        errors=(400, 401, 409, 413),
                    ),
                    "responses": {"201": ok, "400": _ERROR, "401": _ERROR, "409": _ERROR},
                },
            },
            t: {
                "get": _op("One thread", ok, params=_TID),
                "delete": _op(
                    "Delete a thread and its checkpoints",
                    {"description": "deleted"},
                    params=_TID,
                    errors=(401, 404, 409),
                ),
            },
            f"{t}/messages": {
                "get": _op(
                    "The thread's messages (LangChain message dicts)", {"description": "OK"}, params=_TID
                )
            },
            f"{t}/runs": {
                "post": _op(
                    "Run one turn; streams IR events as SSE",
                    _SSE_IR,
                    body="Run",
                    params=_TID,
                    errors=(400, 401, 404, 409, 413),
                )
            },
            f"{t}/approvals": {
                "post": _op(
                    "Answer an approval_requested event", {"description": "OK"}, body="Approval", params=_TID
                )
            },
            f"{t}/cancel": {
                "post": _op(
                    "Cancel the running turn (keeps what was done)",
                    {"description": '`{"cancelled": bool}`'},
                    params=_TID,
                )
            },
            f"{t}/model": {
                "post": _op("Switch the thread's model (next turn)", ok, body="Model", params=_TID)
            },
            f"{t}/mode": {"post": _op("Switch the thread's approval mode", ok, body="Mode", params=_TID)},
            f"{t}/compact": {
                "post": _op(
                    "Summarise the thread so far (optional body with `instructions`);"
                    " the model sees the summary from the next turn",
                    {"description": "`{compacted, summarized, summary, tokens_before, tokens_after}`"},
                    params=_TID,
                    errors=(400, 401, 404, 409, 502),
                )
            },
        },
    }
