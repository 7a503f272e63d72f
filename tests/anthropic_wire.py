"""Anthropic's Messages API wire format for the scripted server (tests/llm_server.py).

``POST /v1/messages`` answers a scripted response the way api.anthropic.com does: streamed as
``message_start``, one ``content_block_start`` / ``content_block_delta`` (``text_delta``,
``input_json_delta``) / ``content_block_stop`` per block, then ``message_delta`` (with
``stop_reason``) and ``message_stop``; or, without ``stream``, one JSON message. Errors use
Anthropic's ``{"type": "error", "error": {...}}`` body. The faults of the OpenAI format apply
(``cut`` ends the stream before ``message_delta``, ``stall``, ``keepalive``, ``hang``), so the
same cases run against langchain-anthropic and the anthropic SDK.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

CHUNK_CHARS = 8
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def _pieces(text: str) -> list[str]:
    return [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]


def _blocks(resp: dict[str, Any], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks of the reply: text first, then one tool_use block per call (raw args)."""
    blocks: list[dict[str, Any]] = []
    if resp.get("text"):
        blocks.append({"type": "text", "text": resp["text"]})
    for call in calls:
        fn = call["function"]
        blocks.append({"type": "tool_use", "id": call["id"], "name": fn["name"], "raw": fn["arguments"]})
    return blocks


def _events(blocks: list[dict[str, Any]], message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "message_start", {"type": "message_start", "message": message}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _pieces(block["raw"])]
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _send_event(handler: Any, name: str, data: dict[str, Any]) -> None:
    handler._chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


def answer(
    handler: Any,
    body: dict[str, Any],
    resp: dict[str, Any],
    calls: list[dict[str, Any]],
    usage: dict[str, int],
) -> None:
    """Answer one ``/v1/messages`` request on `handler` (an llm_server.Handler)."""
    if "error" in resp:
        status = int(resp["error"])
        kind = ERROR_TYPES.get(status, "api_error")
        payload = {
            "type": "error",
            "error": {"type": kind, "message": resp.get("message") or "scripted error"},
        }
        retry = resp.get("retry_after")
        return handler._send_json(status, payload, {"retry-after": str(retry)} if retry is not None else None)
    blocks = _blocks(resp, calls)
    finish = resp.get("finish_reason") or ("tool_calls" if calls else "stop")
    stop_reason = STOP_REASONS.get(finish, finish)
    message: dict[str, Any] = {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": 1},
    }
    if not body.get("stream"):
        content = [
            {k: v for k, v in b.items() if k != "raw"}
            | ({"input": json.loads(b["raw"])} if "raw" in b else {})
            for b in blocks
        ]
        final = {**message, "content": content, "stop_reason": stop_reason}
        final["usage"] = {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]}
        return handler._send_json(200, final)
    handler._start_stream()
    handler._keepalive(resp)
    for name, data in _events(blocks, message):
        _send_event(handler, name, data)
    if handler._interrupted(resp):
        return None
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    _send_event(
        handler,
        "message_delta",
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": usage["completion_tokens"]}},
    )
    _send_event(handler, "message_stop", {"type": "message_stop"})
    handler.wfile.write(b"0\r\n\r\n")
    return None
