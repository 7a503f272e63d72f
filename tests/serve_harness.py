"""Test harness for `auger serve`: the real command in a subprocess on 127.0.0.1 (port 0, the bound
port read from its first stdout line) wired to the scripted LLM of an `AugerEnv`, plus small
clients for its two wire protocols (the Vercel UI-message stream and IR events over SSE)."""

from __future__ import annotations

import json
import os
import queue
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from conftest import AUGER, AugerEnv

TOKEN = "test-token-0123456789"
READY = re.compile(r"listening on (http://\S+)")


def wait_until(condition: Any, timeout: float = 30, what: str = "condition") -> None:
    """Poll `condition()` until true (state in another process has no event to await)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def hang_served(env: AugerEnv) -> Any:
    """A condition: the scripted LLM has taken its `hang` response (the turn is now stuck in it)."""
    return lambda: any(r.get("hang") for r in env.llm.served)


def served(env: AugerEnv, needle: str) -> Any:
    """A condition: the scripted server has received the request for `needle` (its turn is running)."""

    def check() -> bool:
        return any(needle in json.dumps(r.get("messages", [])[-1:]) for r in env.llm.requests)

    return check


class Gate:
    """A FIFO a turn's shell command blocks on (`read x < gate`) until the test opens it: the turn
    holds its thread exactly as long as the test wants, with no sleeps."""

    def __init__(self, env: AugerEnv, prompt: str, answer: str) -> None:
        self.path = env.project / "gate"
        os.mkfifo(self.path)
        when = {"last_user_contains": prompt}
        block = {"name": "execute", "id": "call_gate", "args": {"command": "read x < gate"}}
        env.llm.add({"when": when, "tool_calls": [block]}, {"when": when, "text": answer})

    def open(self) -> None:
        with self.path.open("w") as fifo:  # returns once the command has the FIFO open for reading
            fifo.write("go\n")


def sse_payloads(lines: Iterator[str]) -> Iterator[str]:
    """The `data:` payloads of an SSE stream (comments/keep-alives skipped)."""
    buf: list[str] = []
    for line in lines:
        if line.startswith("data:"):
            buf.append(line[5:].removeprefix(" "))
        elif not line and buf:
            yield "\n".join(buf)
            buf.clear()
    if buf:
        yield "\n".join(buf)


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    token: str
    env: AugerEnv

    def client(self, token: str | None = None, headers: dict[str, str] | None = None) -> httpx.Client:
        tok = self.token if token is None else token
        auth = {"Authorization": f"Bearer {tok}"} if tok else {}
        return httpx.Client(base_url=self.url, headers={**auth, **(headers or {})}, timeout=30.0)

    def chat(self, body: dict[str, Any]) -> tuple[httpx.Response, list[Any]]:
        """POST /chat/stream; the response and its parsed parts ("[DONE]" kept as a string)."""
        with self.client() as c, c.stream("POST", "/chat/stream", json=body) as resp:
            if resp.status_code != 200:
                resp.read()
                return resp, []
            parts = [p if p == "[DONE]" else json.loads(p) for p in sse_payloads(resp.iter_lines())]
        return resp, parts

    def run(self, thread_id: str, prompt: str, **extra: Any) -> list[dict[str, Any]]:
        """POST /threads/{id}/runs and collect every IR event (no approvals expected)."""
        with (
            self.client() as c,
            c.stream("POST", f"/threads/{thread_id}/runs", json={"prompt": prompt, **extra}) as r,
        ):
            assert r.status_code == 200, r.read()
            return [json.loads(p) for p in sse_payloads(r.iter_lines())]

    def new_thread(self, **body: Any) -> str:
        with self.client() as c:
            resp = c.post("/threads", json=body)
        assert resp.status_code == 201, resp.text
        return str(resp.json()["id"])

    def stop(self, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start_server(env: AugerEnv, *args: str, token: str | None = TOKEN, timeout: float = 60) -> Server:
    cmd = [AUGER, "serve", "--port", "0", *args]
    if token is not None:
        cmd += ["--token", token]
    proc = subprocess.Popen(
        cmd,
        cwd=env.project,
        env=env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while time.monotonic() < deadline:
        if not sel.select(timeout=deadline - time.monotonic()):
            break
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if match := READY.search(line):
            if token is None:  # the generated token is printed on the next line
                token = proc.stdout.readline().split("token", 1)[1].strip()
            return Server(proc, match.group(1), token, env)
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(f"auger serve did not start: {''.join(lines)}\n{err}")


class StreamingRun:
    """A run read on a thread: events arrive on a queue while the test acts on the server."""

    def __init__(self, server: Server, thread_id: str, prompt: str) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.status: int | None = None
        self.dropped: httpx.TransportError | None = None
        self._thread = threading.Thread(target=self._read, args=(server, thread_id, prompt), daemon=True)
        self._thread.start()

    def _read(self, server: Server, thread_id: str, prompt: str) -> None:
        try:
            with (
                server.client() as c,
                c.stream("POST", f"/threads/{thread_id}/runs", json={"prompt": prompt}) as r,
            ):
                self.status = r.status_code
                for payload in sse_payloads(r.iter_lines()):
                    self.events.put(json.loads(payload))
        except httpx.TransportError as exc:  # the server died mid-run (a test killed it)
            self.dropped = exc

    def until(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        while True:
            event = self.events.get(timeout=timeout)
            if event["type"] == kind:
                return event

    def rest(self) -> list[dict[str, Any]]:
        self._thread.join(30)
        out = []
        while not self.events.empty():
            out.append(self.events.get())
        return out
