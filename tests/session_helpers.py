"""Driving a real Session in-process against the scripted server (shared by the core tests)."""

from __future__ import annotations

from auger.core import events as ev
from auger.core.session import Session, create_session
from auger.settings import load_settings
from conftest import AugerEnv


async def open_session(env: AugerEnv, mode: str = "manual") -> Session:
    """A Session for `env`'s project and AUGER_HOME in approval `mode`."""
    settings = load_settings(cwd=env.project, env=env.env, flags={"mode": mode})
    return await create_session(settings)


async def drive(session: Session, prompt: str, answers: list[ev.ApprovalDecision]) -> list[ev.Event]:
    """Run one turn, answering approval requests with `answers` in order; return every event."""
    seen: list[ev.Event] = []
    async for event in session.send(prompt):
        seen.append(event)
        if isinstance(event, ev.ApprovalRequested):
            event.respond(answers.pop(0))
    return seen
