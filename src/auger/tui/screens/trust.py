"""The question an untrusted project asks at start (`auger.trust`): what it wants that needs trust
(settings that loosen approvals or change providers, MCP servers, hooks, Claude allow lists,
memory imports from outside it), answered before the agent is built, so nothing of the project
runs first. "Trust" remembers the folder and the agent is built with the project's settings;
"Not now" (or Esc) keeps the walls for this run."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from auger.tui.screens.choice import ChoiceScreen

if TYPE_CHECKING:
    from auger.settings import Settings

Wants = Callable[["Settings"], list[str]]  # what the project wants that needs trust (auger.cli.trust)

MAX_LINES = 12
_MARKS = (".mcp.json", ".auger", ".claude", "AGENTS.md", "CLAUDE.md")  # where a project can want things


def trust_question(settings: Settings, project_wants: Wants) -> ChoiceScreen | None:
    """The question, or None when the project is trusted or wants nothing that needs trust."""
    root = settings.project_root
    if settings.trusted or not any((root / mark).exists() for mark in _MARKS):
        return None
    wants = project_wants(settings)
    if not wants:
        return None
    from auger.tui.format import short_path

    lines = [f"• {line.replace(f'{root}/', '')}" for line in wants[:MAX_LINES]]  # paths in the project
    if len(wants) > MAX_LINES:
        lines.append(f"… and {len(wants) - MAX_LINES} more (auger trust --status lists them)")
    body = [f"{short_path(root)} wants what only a project you trust may have:", *lines]
    answers = [
        ("trust", "Trust this project (remembered for this folder)"),
        ("no", "Not now: its files can only make auger stricter"),
    ]
    return ChoiceScreen("Trust this project?", answers, body)


def trusted_settings(settings: Settings) -> Settings:
    """Remember the trust and load the settings again with the project's, keeping the run's flags."""
    import os

    from auger.settings import load_settings
    from auger.trust import ProjectTrust

    ProjectTrust(settings.home).trust(settings.project_root)
    flags = {k: settings.get(k) for k, src in settings.sources.items() if "flag --" in src}
    env = {**os.environ, "AUGER_HOME": str(settings.home)}
    return load_settings(cwd=settings.cwd, env=env, flags=flags, trust_project=True)
