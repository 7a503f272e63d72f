"""The SDK's SkillsMiddleware, fed by auger's own skill discovery.

deepagents lists each source through the backend and only *warns* when a skill's name does not
match its folder; auger skips such skills (and says why, see `auger.core.catalog.skills`). This subclass
keeps the SDK's prompt section, skill-tool disclosure and `pinned_skills`, and replaces only the
loading: skills are discovered at the start of every run (a user turn), so a skill written during
a conversation is offered on the next turn. The catalogue lives in *untracked* state channels
(LangGraph never checkpoints them: it was ~1.9 KB in every checkpoint of every turn); a run that
resumes mid-turn (after an approval) gets the last catalogue this middleware loaded.
Skills named in `pinned_skills` (a run's input) are pinned where the catalogue is loaded, at the
start of the run, before its first model call: the SDK does it in a `before_model` hook, a graph
step of its own (a task and a checkpoint) before every model call of every turn, for a key only
a run's input sets (subagents are never handed it).
A model with a small window gets the compact list (`auger.core.agent.prompt_compact`).
Its `name` is "SkillsMiddleware", so `create_deep_agent` puts it in the SDK's slot.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, get_type_hints

from deepagents.middleware._utils import append_to_system_message
from deepagents.middleware.skills import SkillMetadata, SkillsMiddleware, SkillsState
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import OmitFromOutput, PrivateStateAttr
from langgraph.channels.untracked_value import UntrackedValue
from typing_extensions import TypedDict

from auger.core.agent.prompt_compact import compact_skills, is_compact
from auger.core.backends.mounts import virtual_path
from auger.core.catalog.skills import SkillCatalog, discover_skills, skill_sources

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest
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


# The SDK's SkillsState with the catalogue in channels LangGraph does not checkpoint.
_FIELDS: dict[str, Any] = {
    **get_type_hints(SkillsState, include_extras=True),
    "skills_metadata": NotRequired[Annotated[list[SkillMetadata] | None, OmitFromOutput, UntrackedValue]],
    "skills_load_errors": NotRequired[Annotated[list[str], PrivateStateAttr, UntrackedValue]],
}
AugerSkillsState: Any = TypedDict("AugerSkillsState", _FIELDS)  # type: ignore[misc]


def _merged(*updates: dict[str, Any] | None) -> dict[str, Any] | None:
    """One state update of several (their keys do not overlap), None if all are None."""
    merged = {key: value for update in updates if update for key, value in update.items()}
    return merged or None


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
    state_schema = AugerSkillsState  # type: ignore[assignment]

    def __init__(self, backend: Any, settings: Settings) -> None:
        sources = [
            (vpath, label.title())
            for label, folder in skill_sources(settings)
            if (vpath := virtual_path(folder, settings)) is not None
        ]
        super().__init__(backend=backend, sources=sources, system_prompt=SKILLS_PROMPT)
        self._settings = settings
        self._catalogue: dict[str, Any] = {}  # the last one loaded, for runs resumed mid-turn

    @property
    def name(self) -> str:
        return "SkillsMiddleware"

    def _load(self, state: Any) -> dict[str, Any] | None:
        catalog = discover_skills(self._settings)
        skills, warnings = skill_metadata(catalog), catalog.warnings
        self._catalogue = {"skills_metadata": skills, "skills_load_errors": warnings}
        if state.get("skills_metadata") == skills and state.get("skills_load_errors", []) == warnings:
            return None
        return dict(self._catalogue)

    def _state(self, state: Any) -> Any:
        """`state` with the catalogue in it (a run resumed mid-turn did not load one)."""
        if "skills_metadata" in state:
            return state
        return {**state, **(self._catalogue or self._load({}) or {})}

    def _loaded(self, state: Any) -> Any:
        """`state` with the catalogue just loaded (the SDK's pinning reads the skills from it)."""
        return {**state, **self._catalogue}

    def before_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> Any:  # type: ignore[override]
        loaded = self._load(state)
        return _merged(loaded, super().before_model(self._loaded(state), runtime))

    async def abefore_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> Any:  # type: ignore[override]
        loaded = await asyncio.to_thread(self._load, state)  # file I/O: off the event loop
        return _merged(loaded, await super().abefore_model(self._loaded(state), runtime))

    # no hook before each model call (a graph node per step): pinning happens in before_agent
    before_model = AgentMiddleware.before_model
    abefore_model = AgentMiddleware.abefore_model

    def modify_request(self, request: ModelRequest) -> ModelRequest:  # type: ignore[type-arg]
        state = self._state(request.state)
        if state is not request.state:
            request = request.override(state=state)
        if not is_compact(request.model):
            return super().modify_request(request)
        section = compact_skills(list(request.state.get("skills_metadata") or []))  # type: ignore[call-overload]
        return request.override(system_message=append_to_system_message(request.system_message, section))
