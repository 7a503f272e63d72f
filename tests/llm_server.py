"""A scripted OpenAI-compatible chat-completions server for end-to-end tests (stdlib only).

It speaks the wire protocol of OpenAI / vLLM / llama.cpp: ``POST /v1/chat/completions``
(SSE streaming with ``data: [DONE]``, or plain JSON) and ``GET /v1/models``, and Anthropic's
Messages API, ``POST /v1/messages`` (tests/anthropic_wire.py; point langchain-anthropic at it
with ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``).  Every chat request consumes the next
matching **scripted response**; a script is a list of dicts:

``{"text": "hi"}``
    Streamed as ~8-character content chunks (a bare string ``"hi"`` is shorthand for this;
    ``"chunk_chars": N`` streams the text and reasoning in N-character chunks instead).
``{"reasoning": "...", "text": "..."}``
    Reasoning streamed first as ``delta.reasoning_content`` (vLLM/llama.cpp convention).
``{"tool_calls": [{"name": "write_file", "args": {...}, "id": "call_1"}], "text": "..."}``
    ``args`` is a dict (JSON-encoded) or a raw string (sent verbatim, may be malformed);
    ``id`` is optional.  Streamed like OpenAI: a first chunk with index, id, type and
    ``function.name`` plus empty arguments, then the arguments in several pieces.
    ``finish_reason`` is ``"tool_calls"``.
``{"text_tokens": N, "rate": tokens_per_s}``
    A long reply of N one-word tokens (after ``text``, if any) in chunks of a few words; ``rate`` is optional
    (without it there is no artificial delay).  ``rate`` also throttles any other stream, on a schedule
    from its start (a late wake-up on a busy machine is made up, so the rate holds on average).
``{"error": 401|429|500|..., "message": "...", "retry_after": s}``
    HTTP error with an OpenAI-style ``{"error": {...}}`` body.
``{"garbage": true}``
    HTTP 200 whose SSE (or JSON) body is not valid JSON.

Faults (for the turn-fault tests; each works on both wire formats):

``"cut": "eof"``
    The stream ends after the scripted deltas with NO finish reason, usage or ``[DONE]``
    (Anthropic: no ``message_delta`` / ``message_stop``), the HTTP body terminated cleanly — a
    proxy or server that gives up early.  Script the tool-call ``args`` as the raw string cut
    where you want (``'{"command": "rm -rf keep'``).
``"cut": "drop"``
    The same, but the socket is closed in the middle of the chunked body (the client sees an
    incomplete read — a dropped connection or a killed server).
``"hang": true``
    Never answer, not even a status line; return once the client disconnects.
``"hang": "after_headers"``
    ``200`` and the SSE headers, then silence until the client disconnects.
``"stall": true``
    The scripted deltas (e.g. half a reply), then silence until the client disconnects.
``"at_once": true``
    The whole streamed body in one write, as a fast model's reply is when the client reads it
    late (a sent-ahead backlog): one socket read on the client returns as much as it can hold.
``"keepalive": s``
    After the headers, an SSE comment (``: keep-alive``) every ``keepalive_every`` seconds
    (default 0.5) for ``s`` seconds — a slow server processing the prompt — then the answer.
``"html": true`` (this and the next two: chat completions only)
    ``200`` with an HTML page (``Content-Type: text/html``): a base_url that is a web site or a login
    page; ``"html": 502``: that status (a proxy's error page).
``"redirect": url``
    ``302`` to ``url`` (relative to the server, e.g. ``"/login"``); a GET of any path then gets the HTML page.
``"drip": s``
    ``200`` and the SSE headers, then one byte of an endless SSE comment every ``s`` seconds.
``"before": callable``
    Called (in-process only) before the answer: e.g. lock the thread database mid-turn.

Optional keys on any response: ``"delay": s`` (sleep before answering), ``"repeat": true`` (never consumed),
``"finish_reason": "length"`` (override), ``"prompt_tokens": N`` (override usage), and
``"when"``: ``{"model": name}``, ``{"last_user_contains": s}``, ``{"system_contains": s}``
(all given keys must match).  The server picks the FIRST unconsumed response whose
``when`` matches; responses without ``when`` match anything.  When nothing matches, it
replies ``"(script exhausted)"`` (recorded with ``"exhausted": true``).  Unknown keys raise
``ValueError`` so typos fail loudly.  With ``api_key`` set, requests lacking
``Authorization: Bearer <key>`` get a 401, are logged and consume nothing.  Usage
(``prompt_tokens`` ≈ request bytes / 4) is sent in a final chunk when
``stream_options.include_usage`` is set, and always without streaming.

A script file for the CLI is a JSON list of responses, or ``{"models": [...],
"responses": [...]}``.  The request log (``--log``) gets one JSON line per chat request:
``{"time": t, "request": <body>, "response": <scripted response used>}``. ``script.first_tokens``
holds the wall time at which each streamed reply's first text chunk was sent (latency benches).
``--times FILE`` appends ``received answered`` (epoch seconds) per POST: the gap from one answer's
end to the next request is the client's own time between model calls (bench_steps).

    python tests/llm_server.py --script FILE.json --port 0 --log FILE.jsonl [--times FILE] [--api-key K]

prints ``PORT=<n>`` as its first stdout line, then serves on 127.0.0.1 until killed.
In-process: ``with ScriptedLLM(script=[...]) as llm: llm.base_url; llm.requests; llm.add(...)``;
``llm.bodies`` are the raw request bodies, byte for byte.
"""

from __future__ import annotations

import argparse
import io
import json
import select
import socket
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

try:
    import anthropic_wire
except ImportError:  # imported as a module of another package layout: make tests/ importable
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import anthropic_wire

Response = dict[str, Any]
EXHAUSTED = "(script exhausted)"
HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><h1>Sign in</h1></body></html>\n"
)
DEFAULT_MODELS = ["scripted-model"]
CHUNK_CHARS = 8
WORDS_PER_CHUNK = 4
# fmt: off
KNOWN_KEYS = {
    "text", "reasoning", "tool_calls", "text_tokens", "rate", "error", "message", "retry_after",
    "garbage", "delay", "hang", "repeat", "finish_reason", "prompt_tokens", "when", "exhausted",
    "cut", "stall", "keepalive", "keepalive_every", "chunk_chars", "at_once", "html", "redirect", "drip",
    "before",
}
# fmt: on
WHEN_KEYS = {"model", "last_user_contains", "system_contains"}
ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def normalize(resp: Response | str) -> Response:
    """Validate one scripted response (a bare string means ``{"text": s}``)."""
    if isinstance(resp, str):
        return {"text": resp}
    if not isinstance(resp, dict):
        raise TypeError(f"scripted response must be a dict or str, got {resp!r}")
    if unknown := set(resp) - KNOWN_KEYS:
        raise ValueError(f"unknown keys in scripted response: {sorted(unknown)}")
    if unknown := set(resp.get("when") or {}) - WHEN_KEYS:
        raise ValueError(f"unknown 'when' keys: {sorted(unknown)}")
    for call in resp.get("tool_calls") or []:
        if "name" not in call:
            raise ValueError(f"tool call without a name: {call!r}")
    if resp.get("cut") not in (None, "eof", "drop"):
        raise ValueError(f"'cut' must be 'eof' or 'drop', got {resp['cut']!r}")
    if resp.get("hang") not in (None, False, True, "after_headers"):
        raise ValueError(f"'hang' must be true or 'after_headers', got {resp['hang']!r}")
    return dict(resp)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def matches(when: dict[str, Any] | None, body: dict[str, Any]) -> bool:
    """True if a request ``body`` satisfies every condition of ``when``."""
    if not when:
        return True
    messages = body.get("messages") or []
    if "model" in when and body.get("model") != when["model"]:
        return False
    if "last_user_contains" in when:
        users = [m for m in messages if m.get("role") == "user"]
        if not users or when["last_user_contains"] not in _text_of(users[-1].get("content")):
            return False
    if "system_contains" in when:
        systems = [_text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
        if not any(when["system_contains"] in s for s in systems):
            return False
    return True


class Script:
    """Thread-safe list of pending responses plus the log of requests received."""

    def __init__(
        self,
        responses: list[Any] | None = None,
        log_path: str | Path | None = None,
        times_path: str | Path | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._pending: list[Response] = []
        self.requests: list[dict[str, Any]] = []
        self.bodies: list[bytes] = []  # each chat request's body as received, byte for byte
        self.served: list[Response] = []
        self.first_tokens: list[float] = []  # time.time() each streamed reply's first text chunk was sent
        self.log_path = Path(log_path) if log_path else None
        self.times_path = Path(times_path) if times_path else None
        self.models: list[str] = []  # every `when.model` ever scripted, for GET /v1/models
        self.add(*(responses or []))

    def add(self, *responses: Response | str) -> None:
        items = [normalize(r) for r in responses]
        with self._lock:
            self._pending.extend(items)
            for name in ((r.get("when") or {}).get("model") for r in items):
                if name and name not in self.models:
                    self.models.append(name)

    @property
    def pending(self) -> list[Response]:
        with self._lock:
            return list(self._pending)

    def take(self, body: dict[str, Any]) -> Response:
        """Record ``body`` and return the first pending response whose ``when`` matches."""
        with self._lock:
            idx = next((i for i, r in enumerate(self._pending) if matches(r.get("when"), body)), None)
            if idx is None:
                resp: Response = {"text": EXHAUSTED, "exhausted": True}
            else:
                resp = self._pending[idx] if self._pending[idx].get("repeat") else self._pending.pop(idx)
            self.record(body, resp)
            return resp

    def record(self, body: dict[str, Any], resp: Response) -> None:
        self.requests.append(body)
        self.served.append(resp)
        if self.log_path:
            line = json.dumps({"time": time.time(), "request": body, "response": resp}, default=str)
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")

    def timed(self, received: float, answered: float) -> None:
        """With a times file: note when a POST arrived and when its answer was written (benches)."""
        if self.times_path:
            with self._lock, self.times_path.open("a", encoding="utf-8") as f:
                f.write(f"{received:.6f} {answered:.6f}\n")


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


def _tool_calls(resp: Response) -> list[dict[str, Any]]:
    calls = []
    for call in resp.get("tool_calls") or []:
        args = call.get("args", {})
        arguments = args if isinstance(args, str) else json.dumps(args)
        call_id = call.get("id") or f"call_{uuid.uuid4().hex[:24]}"
        calls.append(
            {"id": call_id, "type": "function", "function": {"name": call["name"], "arguments": arguments}}
        )
    return calls


def _usage(resp: Response, calls: list[dict[str, Any]], request_bytes: int) -> dict[str, int]:
    completion = _tokens(resp.get("reasoning") or "") + _tokens(resp.get("text") or "")
    completion += int(resp.get("text_tokens") or 0) + sum(
        _tokens(c["function"]["arguments"]) + 1 for c in calls
    )
    prompt = int(resp.get("prompt_tokens") or max(1, request_bytes // 4))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _long_text(n_tokens: int) -> Iterator[str]:
    words = ("lorem ", "ipsum ", "dolor ", "sit ", "amet ", "consectetur ", "adipiscing ", "elit ")
    for start in range(0, n_tokens, WORDS_PER_CHUNK):
        count = min(WORDS_PER_CHUNK, n_tokens - start)
        yield "".join(words[(start + k) % len(words)] for k in range(count))


class Handler(BaseHTTPRequestHandler):
    """One HTTP/1.1 connection (keep-alive) to the scripted server."""

    protocol_version = "HTTP/1.1"
    # each SSE chunk is its own small write: with Nagle's algorithm on, a write waits for the ACK of
    # the one before, which the client delays (~40 ms on Linux), so every reply would stall there
    disable_nagle_algorithm = True
    server: LLMHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # ---- plumbing ---------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, retry_after: float | None = None) -> None:
        kind, code = ERROR_KINDS.get(status, ("server_error", None))
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        self._send_json(
            status, {"error": {"message": message, "type": kind, "param": None, "code": code}}, headers
        )

    def _authorized(self) -> bool:
        key = self.server.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_error(401, "Incorrect API key provided.")
        return False

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _sse(self, payload: Any) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._chunk(f"data: {text}\n\n".encode())

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _end_stream(self) -> None:
        self._sse("[DONE]")
        self.wfile.write(b"0\r\n\r\n")

    def _keepalive(self, resp: Response) -> None:
        """SSE comments for ``resp["keepalive"]`` seconds (a server busy with the prompt)."""
        end = time.monotonic() + float(resp.get("keepalive") or 0)
        every = float(resp.get("keepalive_every") or 0.5)
        while (left := end - time.monotonic()) > 0 and not self.server.stopping.is_set():
            self._chunk(b": keep-alive\n\n")
            self.server.stopping.wait(min(every, left))

    def _interrupted(self, resp: Response) -> bool:
        """After the scripted deltas: apply a ``stall`` / ``cut`` fault; True if one ended the answer."""
        if resp.get("stall"):
            self._wait_for_disconnect()
        elif resp.get("cut") == "eof":
            self.wfile.write(b"0\r\n\r\n")  # a well-formed end of the body, but no finish
            return True
        elif resp.get("cut") == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)  # mid-body: an incomplete chunked read
        else:
            return False
        self.close_connection = True
        return True

    def _wait_for_disconnect(self) -> None:
        sock = self.connection
        while not self.server.stopping.is_set():
            if select.select([sock], [], [], 0.05)[0]:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        return
                except OSError:
                    return
                time.sleep(0.05)

    # ---- routes -----------------------------------------------------------------------
    def _send_html(self, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(HTML_PAGE)))
        self.end_headers()
        self.wfile.write(HTML_PAGE)

    def _drip(self, seconds: float) -> None:
        """SSE headers, then one byte of a comment every ``seconds`` until the client goes away."""
        self._start_stream()
        while not self.server.stopping.wait(seconds):
            self._chunk(b":")

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            if self.path.startswith("/login"):
                return self._send_html()
            return self._send_error(404, f"Unknown path {self.path}")
        if self._authorized():
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in self.server.models
            ]
            self._send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        received = time.time()
        try:
            self._post()
        finally:
            self.server.script.timed(received, time.time())

    def _post(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        route = self.path.split("?")[0].rstrip("/")
        if route not in ("/v1/chat/completions", "/v1/messages"):
            return self._send_error(404, f"Unknown path {self.path}")
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send_error(400, "Request body is not valid JSON")
        if not self._authorized():
            return self.server.script.record(body, {"error": 401, "auth": True})
        self.server.script.bodies.append(raw)
        resp = self.server.script.take(body)
        if resp.get("before"):
            resp["before"]()
        if resp.get("delay"):
            self.server.stopping.wait(float(resp["delay"]))
        if resp.get("hang"):
            if resp["hang"] == "after_headers":
                self._start_stream()
            self._wait_for_disconnect()
            self.close_connection = True
            return None
        wire, self.wfile = self.wfile, (io.BytesIO() if resp.get("at_once") else self.wfile)
        try:
            if route == "/v1/messages":
                calls = _tool_calls(resp)
                anthropic_wire.answer(self, body, resp, calls, _usage(resp, calls, len(raw)))
            else:
                self._answer(body, resp, len(raw))
            if self.wfile is not wire:  # `at_once`: the whole answer, headers included, in one write
                wire.write(self.wfile.getvalue())
        except (ConnectionError, OSError):  # the client went away mid-answer
            self.close_connection = True
        finally:
            self.wfile = wire
        return None

    # ---- answering --------------------------------------------------------------------
    def _faulty(self, resp: Response, stream: bool) -> bool:
        """Answer a scripted error or a reply that is not the API; False if ``resp`` is none of them."""
        if "error" in resp:
            status, message = int(resp["error"]), resp.get("message") or "scripted error"
            self._send_error(status, message, resp.get("retry_after"))
        elif resp.get("html"):
            self._send_html(200 if resp["html"] is True else int(resp["html"]))
        elif resp.get("redirect"):
            self._send_json(302, {}, {"Location": resp["redirect"]})
        elif resp.get("drip"):
            self._drip(float(resp["drip"]))
        elif resp.get("garbage") and not stream:
            self._send_json(200, b"this is {not json")
        elif resp.get("garbage"):
            self._start_stream()
            self._sse('{"id": "chatcmpl-garbage", "choices": [{"delta": {this is not json')
            self._end_stream()
        else:
            return False
        return True

    def _answer(self, body: dict[str, Any], resp: Response, request_bytes: int) -> None:
        stream = bool(body.get("stream"))
        if self._faulty(resp, stream):
            return None
        calls = _tool_calls(resp)
        finish = resp.get("finish_reason") or ("tool_calls" if calls else "stop")
        usage = _usage(resp, calls, request_bytes)
        model = body.get("model") or self.server.models[0]
        base = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "created": int(time.time()), "model": model}
        if not stream:
            text = (resp.get("text") or "") + "".join(_long_text(int(resp.get("text_tokens") or 0)))
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if resp.get("reasoning"):
                message["reasoning_content"] = resp["reasoning"]
            if calls:
                message["tool_calls"] = calls
            choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            return self._send_json(
                200, {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        maybe_usage = {"usage": None} if include_usage else {}
        rate = float(resp.get("rate") or 0)
        self._start_stream()
        self._keepalive(resp)
        started, sent = time.perf_counter(), 0
        first_text = True
        for delta, n_tokens in self._deltas(resp, calls):
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
            if first_text and delta.get("content"):
                first_text = False
                self.server.script.first_tokens.append(time.time())
            self._sse({**base, "object": "chat.completion.chunk", "choices": [choice], **maybe_usage})
            sent += n_tokens
            if rate and n_tokens:  # on a schedule from the start: a late wake-up is made up, not added
                time.sleep(max(0.0, started + sent / rate - time.perf_counter()))
        if self._interrupted(resp):
            return None
        final: dict[str, Any] = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": finish}
        self._sse({**base, "object": "chat.completion.chunk", "choices": [final], **maybe_usage})
        if include_usage:
            self._sse({**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        return self._end_stream()

    @staticmethod
    def _deltas(resp: Response, calls: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], int]]:
        """The streamed deltas of one response, each with its (approximate) token count."""
        yield {"role": "assistant", "content": ""}, 0
        size = int(resp.get("chunk_chars") or CHUNK_CHARS)
        for piece in _pieces(resp.get("reasoning") or "", size):
            yield {"reasoning_content": piece}, _tokens(piece)
        for piece in _pieces(resp.get("text") or "", size):
            yield {"content": piece}, _tokens(piece)
        for piece in _long_text(int(resp.get("text_tokens") or 0)):
            yield {"content": piece}, piece.count(" ")
        for index, call in enumerate(calls):
            fn = call["function"]
            head = {"index": index, "id": call["id"], "type": "function", "function": {**fn, "arguments": ""}}
            yield {"tool_calls": [head]}, 1
            for piece in _pieces(fn["arguments"], CHUNK_CHARS):
                yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, _tokens(piece)


class LLMHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, script: Script, models: list[str] | None, api_key: str | None) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.script, self.api_key, self._models = script, api_key, list(models or [])
        self.stopping = threading.Event()

    @property
    def models(self) -> list[str]:
        names = self._models + [m for m in self.script.models if m not in self._models]
        return names or list(DEFAULT_MODELS)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client hanging up is not an error
            super().handle_error(request, client_address)


class ScriptedLLM:
    """A scripted chat-completions server running in a background thread (see module docstring)."""

    def __init__(
        self,
        script: list[Any] | None = None,
        *,
        api_key: str | None = None,
        models: list[str] | None = None,
        log_path: str | Path | None = None,
        port: int = 0,
        times_path: str | Path | None = None,
    ) -> None:
        self.script = Script(script, log_path, times_path)
        self.server = LLMHTTPServer(port, self.script, models, api_key)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat request received, in order."""
        return self.script.requests

    @property
    def bodies(self) -> list[bytes]:
        """The raw body of every chat request answered, as the client sent it."""
        return list(self.script.bodies)

    @property
    def served(self) -> list[Response]:
        """The scripted response used for each request (parallel to ``requests``)."""
        return self.script.served

    @property
    def pending(self) -> list[Response]:
        return self.script.pending

    def add(self, *responses: Response | str) -> None:
        self.script.add(*responses)

    def start(self) -> ScriptedLLM:
        self._thread = threading.Thread(
            target=self.server.serve_forever, args=(0.05,), name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.stopping.set()
        if self._thread:
            self.server.shutdown()
            self._thread.join(5)
        self.server.server_close()

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible chat-completions server")
    parser.add_argument("--script", help="JSON file: a list of responses or {models, responses}")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", help="append one JSON line per chat request here")
    parser.add_argument("--times", help="append 'received answered' (epoch seconds) per POST here")
    parser.add_argument("--api-key", default=None, help="require 'Authorization: Bearer KEY'")
    args = parser.parse_args(argv)
    data: Any = json.loads(Path(args.script).read_text(encoding="utf-8")) if args.script else []
    responses, models = (
        (data, None) if isinstance(data, list) else (data.get("responses", []), data.get("models"))
    )
    llm = ScriptedLLM(
        responses,
        api_key=args.api_key,
        models=models,
        log_path=args.log,
        port=args.port,
        times_path=args.times,
    )
    print(f"PORT={llm.port}", flush=True)
    try:
        llm.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        llm.server.stopping.set()
        llm.server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
