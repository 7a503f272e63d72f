"""A real ACP client (the `agent-client-protocol` package's client side) driving `auger acp`.

`RecordingClient` keeps every session update, answers `session/request_permission` with the
option kind the test chose, and lets a test await "an update like this has arrived" (an
`asyncio.Event` per condition, no sleeps). `spawn(env)` starts the real `auger acp` process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import schema as s
from acp.stdio import spawn_agent_process

from conftest import AUGER, AugerEnv

Predicate = Callable[[Any], bool]


class RecordingClient:
    def __init__(self, answer: str = "allow_once") -> None:
        self.answer = answer  # the kind of option to pick: allow_once | allow_always | reject_once | cancel
        self.updates: list[Any] = []
        self.permissions: list[s.RequestPermissionRequest] = []
        self.forms: list[tuple[str, Any]] = []  # (message, mode) of each elicitation/create
        self.form_answers: list[Any] = []  # what to answer them, in order (then: decline)
        self._waiters: list[tuple[Predicate, asyncio.Event]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        for predicate, event in self._waiters:
            if predicate(update):
                event.set()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[s.PermissionOption], **kwargs: Any
    ) -> s.RequestPermissionResponse:
        self.permissions.append(
            s.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        )
        if self.answer == "cancel":
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        chosen = next(o for o in options if o.kind == self.answer)
        return s.RequestPermissionResponse(
            outcome=s.AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.forms.append((message, mode))
        if self.form_answers:
            return self.form_answers.pop(0)
        return s.DeclineElicitationResponse(action="decline")

    async def wait_for(self, predicate: Predicate, timeout: float = 60) -> Any:
        """The first update (already received or coming) that `predicate` accepts."""
        event = asyncio.Event()
        self._waiters.append((predicate, event))
        try:
            if not any(predicate(u) for u in self.updates):
                await asyncio.wait_for(event.wait(), timeout)
            return next(u for u in self.updates if predicate(u))
        finally:
            self._waiters.remove((predicate, event))

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    def clear(self) -> None:
        self.updates.clear()


def is_kind(kind: str) -> Predicate:
    return lambda u: u.session_update == kind


@contextlib.asynccontextmanager
async def spawn(
    ae: AugerEnv, client: RecordingClient, *args: str, cwd: Path | None = None, unstable: bool = False
) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process]]:
    """The real `auger acp` in the test's AUGER_HOME and project, with a client connected
    (`unstable`: one that takes ACP's unstable methods, elicitation/create among them)."""
    log = (ae.home / "acp-stderr.log").open("ab")
    try:
        async with spawn_agent_process(
            client,
            AUGER,
            "acp",
            *args,
            env=ae.env,
            cwd=cwd or ae.project,
            transport_kwargs={"stderr": log.fileno()},
            use_unstable_protocol=unstable,
        ) as (conn, proc):
            yield conn, proc
    finally:
        log.close()


async def start(conn: Any, ae: AugerEnv) -> str:
    """initialize + session/new in the project; returns the session id."""
    await conn.initialize(protocol_version=1, client_capabilities=s.ClientCapabilities())
    session = await conn.new_session(cwd=str(ae.project), mcp_servers=[])
    return str(session.session_id)
