"""The SDK's SkillsMiddleware, fed by auger's own skill discovery.

deepagents lists each source through the backend and only *warns* when a skill's name does not
match its folder; auger skips such skills (and says why, see `auger.core.catalog.skills`). This subclass
keeps the SDK's prompt section, skill-tool disclosure and `pinned_skills`, and replaces only the
loading: skills are discovered at the start of every run (a user turn), so a skill written during
a conversation is offered on the next turn; state is written only when the catalogue changed.
Its `name` is "SkillsMiddleware", so `create_deep_agent` puts it in the SDK's slot.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from deepagents.middleware.skills import SkillMetadata, SkillsMiddleware

from auger.core.backends.mounts import virtual_path
from auger.core.catalog.skills import SkillCatalog, discover_skills, skill_sources

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from auger.settings import Settings

SKILLS_PROMPT = """## Skills

Skills are step-by-step instructions for particular tasks, in SKILL.md files.
{skills_locations}{skills_load_warnings}

**Available skills:**

{skills_list}

When the user's request matches a skill's description, read its SKILL.md with `read_file`
(`limit=1000`) before you start, and follow it. Files a skill mentions live in its folder.
A message that starts with `<skill name=...>` is the user invoking that skill directly:
its instructions are already in the message."""


def skill_metadata(catalog: SkillCatalog) -> list[SkillMetadata]:
    return [
        SkillMetadata(
            path=s.virtual_path,
            name=s.name,
            description=s.description,
            license=None,
            compatibility=None,
            metadata={},
            allowed_tools=list(s.allowed_tools),
        )
        for s in catalog
    ]


class AugerSkillsMiddleware(SkillsMiddleware):  # type: ignore[type-arg]
    def __init__(self, backend: Any, settings: Settings) -> None:
        sources = [
            (vpath, label.title())
            for label, folder in skill_sources(settings)
            if (vpath := virtual_path(folder, settings)) is not None
        ]
        super().__init__(backend=backend, sources=sources, system_prompt=SKILLS_PROMPT)
        self._settings = settings

    @property
    def name(self) -> str:
        return "SkillsMiddleware"

    def _load(self, state: Any) -> dict[str, Any] | None:
        catalog = discover_skills(self._settings)
        skills, warnings = skill_metadata(catalog), catalog.warnings
        if state.get("skills_metadata") == skills and state.get("skills_load_errors", []) == warnings:
            return None
        return {"skills_metadata": skills, "skills_load_errors": warnings}

    def before_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> Any:  # type: ignore[override]
        return self._load(state)

    async def abefore_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> Any:  # type: ignore[override]
        return await asyncio.to_thread(self._load, state)  # file I/O: off the event loop
