"""Driving a real Session in-process against the scripted server (shared by the core tests)."""

from __future__ import annotations

from pathlib import Path

from auger.core import events as ev
from auger.core.session import Session, create_session
from auger.settings import Settings, load_settings
from conftest import AugerEnv
from llm_server import ScriptedLLM


def scripted_settings(
    tmp_path: Path, llm: ScriptedLLM, project: str = "project", database_url: str = ""
) -> Settings:
    """Settings for `tmp_path/home` (AUGER_HOME) and `tmp_path/<project>`, model `local:scripted-model`
    (and `local:other-model`) served by `llm`, approval mode yolo; threads in `database_url`
    (AUGER_DATABASE_URL) when given."""
    home, proj = tmp_path / "home", tmp_path / project
    home.mkdir(exist_ok=True)
    proj.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
        'models = ["scripted-model", "other-model"]\n'
    )
    env = {"AUGER_HOME": str(home), "AUGER_DATABASE_URL": database_url}
    return load_settings(cwd=proj, env=env, flags={"mode": "yolo"})


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
