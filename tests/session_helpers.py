"""Driving a real Session in-process against the scripted server (shared by the core tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.core import events as ev
from auger.core.port import TurnOptions, headless_policy
from auger.core.runtime import open_session as open_local
from auger.core.session.session import Session
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


def offline_settings(tmp_path: Path, monkeypatch: Any) -> Settings:
    """Settings for a git project under `tmp_path` whose only provider (`local`, model `small`)
    points at a closed port: for agents built and driven with a scripted chat model."""
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text(
        '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["small"]\n'
    )
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


async def open_session(env: AugerEnv, mode: str = "manual", **options: Any) -> Session:
    """A Session (over a Runtime of its own) for `env`'s project and AUGER_HOME; its turns run in
    approval `mode` (`options(session)`)."""
    settings = load_settings(cwd=env.project, env=env.env, flags={"mode": mode})
    return await open_local(settings, **options)


def options(session: Session, *, headless: bool = False) -> TurnOptions:
    """The turn options of the configured mode (`headless`: approvals refused by policy)."""
    return TurnOptions(session.runtime.settings.mode, approval=headless_policy if headless else None)


async def drive(session: Session, prompt: str, answers: list[ev.ApprovalDecision]) -> list[ev.Event]:
    """Run one turn, answering approval requests with `answers` in order; return every event."""
    seen: list[ev.Event] = []
    async for event in session.send(prompt, options(session)):
        seen.append(event)
        if isinstance(event, ev.ApprovalRequested):
            event.respond(answers.pop(0))
    return seen


async def counted_turns(
    session: Session, llm: ScriptedLLM, scripts: list[list[dict[str, Any]]], question: str, counter: list[int]
) -> list[int]:
    """One headless turn per script on a new thread (`question` formatted with the turn's `i`);
    how far `counter[0]` moved in each."""
    await session.open_thread(None)
    per_turn = []
    for i, script in enumerate(scripts):
        llm.add(*script)
        before = counter[0]
        events = [e async for e in session.send(question.format(i=i), options(session, headless=True))]
        assert type(events[-1]).__name__ == "TurnEnded", events[-1]
        per_turn.append(counter[0] - before)
    return per_turn
